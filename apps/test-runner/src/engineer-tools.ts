import { ENGINEER_TOOL_ARGS, isEngineerTool, type ToolCall, type ToolResult } from '@roundtable/contracts';
import { listFileTree, PathEscapeError, planWorkspaceDeletions, writeFileChanges } from '@roundtable/sandbox';
import { readOne } from './read-one';

/** What a read_file answers at most; the model is told where the cut is. */
const READ_CAP = 64 * 1024;
/** The end of the tests' output a run_tests answers with. */
const OUTPUT_TAIL = 4096;

/** The measured test run a run_tests call answers with (the sandbox's, never the model's counts). */
export interface ToolTestRun {
  exit_code: number;
  passed: number;
  failed: number;
  errors: number;
  timed_out: boolean;
  output: string;
}

/** Where the tools run and what they may do: the run's workspace, and the test run (null: run_tests is not allowed). */
export interface ToolBench {
  workspace: string;
  runTests: ((command: string | undefined) => Promise<ToolTestRun>) | null;
}

const ok = (call: ToolCall, content: string): ToolResult => ({ id: call.id, name: call.name, content, is_error: false });
const refused = (call: ToolCall, content: string): ToolResult => ({ id: call.id, name: call.name, content, is_error: true });

/**
 * One tool an agent-mode engineer called (issue 21), run in the run's workspace. Every path is
 * checked as an Implementation's is (relative, no `..`, not in .git, no symlink out: libs/sandbox
 * refuses it before anything changes); a refusal or a failure is the model's answer, not an
 * error of the op, so the loop goes on and the model can correct itself. `finish` is not run
 * here: the op collects the changes for it.
 */
export async function runEngineerTool(bench: ToolBench, call: ToolCall): Promise<ToolResult> {
  if (!isEngineerTool(call.name) || call.name === 'finish') {
    return refused(call, `unknown tool ${JSON.stringify(call.name)}; the tools are ${Object.keys(ENGINEER_TOOL_ARGS).join(', ')}`);
  }
  const args = ENGINEER_TOOL_ARGS[call.name].safeParse(call.arguments);
  if (!args.success) return refused(call, `refused: ${args.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`);
  try {
    switch (call.name) {
      case 'list_files':
        return ok(call, await listFiles(bench.workspace, (args.data as { path?: string }).path));
      case 'read_file':
        return await readFile(bench.workspace, call, (args.data as { path: string }).path);
      case 'write_file': {
        const { path, content } = args.data as { path: string; content: string };
        await writeFileChanges(bench.workspace, [{ path, content }]);
        return ok(call, `wrote ${path} (${Buffer.byteLength(content)} bytes)`);
      }
      case 'delete_file': {
        const { path } = args.data as { path: string };
        const plan = await planWorkspaceDeletions(bench.workspace, [path]);
        if (plan.missing.length) return refused(call, `no such file in the workspace: ${path}`);
        await plan.run();
        return ok(call, `deleted ${path}`);
      }
      case 'run_tests':
        if (!bench.runTests) return refused(call, 'refused: permissions.engineer.run_tests is false, so the tests run only after finish');
        return ok(call, testAnswer(await bench.runTests((args.data as { command?: string }).command)));
    }
  } catch (e) {
    if (e instanceof PathEscapeError) return refused(call, `refused: ${e.message}`);
    throw e;
  }
}

async function listFiles(workspace: string, dir: string | undefined): Promise<string> {
  const prefix = dir ? `${dir.replace(/\/+$/, '')}/` : '';
  const tree = (await listFileTree(workspace)).filter((p) => p.startsWith(prefix));
  return tree.length ? tree.join('\n') : dir ? `(no files under ${dir})` : '(the workspace is empty)';
}

async function readFile(workspace: string, call: ToolCall, path: string): Promise<ToolResult> {
  const f = await readOne(workspace, path, READ_CAP);
  if (f.content === null) return refused(call, `${path}: ${f.error}`);
  return ok(call, f.truncated ? `${f.content}\n[cut at ${READ_CAP} of ${f.bytes} bytes]` : f.content);
}

function testAnswer(run: ToolTestRun): string {
  const counts = `exit ${run.exit_code}: ${run.passed} passed, ${run.failed} failed, ${run.errors} errors${run.timed_out ? ', timed out' : ''}`;
  const tail = run.output.length > OUTPUT_TAIL ? `[…]\n${run.output.slice(-OUTPUT_TAIL)}` : run.output;
  return `${counts}\n${tail}`;
}
