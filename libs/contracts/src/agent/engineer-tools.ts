import { z } from 'zod';
import { AgentModeReport, DeletedPath } from './implementation.schema';
import type { ToolSpec } from './tool-call.schema';

/**
 * The tools an engineer in agent mode on an API provider is offered (issue 21): the test-runner
 * runs them in the run's worktree (every path checked like an Implementation's, run_tests in
 * the sandbox), and `finish` ends the loop with the report an agent-mode CLI replies with.
 * Each tool's arguments are a zod schema: the JSON schema the model sees is made from it, and
 * the test-runner parses what the model sent with it, so the two cannot drift apart.
 */

const RelativePath = DeletedPath;

export const ENGINEER_TOOL_ARGS = {
  list_files: z.object({ path: RelativePath.optional().describe('a directory of the workspace; absent: the whole workspace') }),
  read_file: z.object({ path: RelativePath }),
  write_file: z.object({ path: RelativePath, content: z.string().describe('the whole new content of the file') }),
  delete_file: z.object({ path: RelativePath }),
  run_tests: z.object({ command: z.string().min(1).optional().describe("a shell command run from the workspace root; absent: the project's test command") }),
  finish: AgentModeReport,
} as const;
export type EngineerToolName = keyof typeof ENGINEER_TOOL_ARGS;

const DESCRIPTIONS: Record<EngineerToolName, string> = {
  list_files: 'List the files of the workspace (or of one directory in it), one relative path a line.',
  read_file: 'Read one file of the workspace (a relative path). Long files are cut, and say so.',
  write_file: 'Create or overwrite one file of the workspace with the whole of its new content.',
  delete_file: 'Delete one file of the workspace.',
  run_tests: 'Run the tests in the sandbox and get the exit code and the end of their output.',
  finish: 'Call once, when the workspace holds your implementation and its tests: your report. Nothing after it is run.',
};

function specOf(name: EngineerToolName): ToolSpec {
  const parameters = z.toJSONSchema(ENGINEER_TOOL_ARGS[name], { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema: _dialect, ...plain } = parameters;
  return { name, description: DESCRIPTIONS[name], parameters: plain };
}

/**
 * The tools offered, in a fixed order; run_tests only where permissions.engineer.run_tests allows
 * it. Every turn of every loop asks for them: converted from zod once (about a millisecond each
 * time otherwise), handed out as fresh objects, since an adapter may adjust what it gets.
 */
const toolsText = new Map<boolean, string>();
export function engineerTools(runTests: boolean): ToolSpec[] {
  let text = toolsText.get(runTests);
  if (text === undefined) toolsText.set(runTests, (text = JSON.stringify((Object.keys(ENGINEER_TOOL_ARGS) as EngineerToolName[]).filter((n) => runTests || n !== 'run_tests').map(specOf))));
  return JSON.parse(text) as ToolSpec[];
}

export function isEngineerTool(name: string): name is EngineerToolName {
  return Object.prototype.hasOwnProperty.call(ENGINEER_TOOL_ARGS, name);
}
