import {
  AgentModeReport,
  DEFAULT_TEST_COMMAND,
  Implementation,
  mayRunTests,
  type AgentSchemaName,
  type ProjectConfig,
  type ToolCall,
  type ToolOpChanges,
  type ToolResult,
  type ToolTurn,
} from '@roundtable/contracts';
import type { BuildRunState, ChatMessage, ProposalRecord, ToolTurnRecord } from './build-types';
import { freshSpec, requestCall } from './build-calls';
import { alreadyRecorded, awaitedRole, haltBuild } from './build-definition';
import { latestProposal, type Step } from './build-step';
import { isSolo } from './solo';
import { engineerPack } from './context-packs';
import { engineerUsesTools } from './file-reading';

export { engineerUsesTools };
import { onImplementation } from './implement.stage';

/**
 * The engineer in agent mode on an API provider (issue 21): a tool loop the engine drives one
 * turn at a time. Each turn is an agent call like any other (recorded, budgeted, reserved
 * before it is sent, retried and repaired by the engine); the tools it called run at the
 * test-runner in the run's worktree (a `tool` op: paths checked, run_tests in the sandbox);
 * the next turn's prompt replays the loop so far. `finish` ends it: the test-runner says what
 * changed (`git add -A && git diff --cached`) and that, with the finish report, becomes the
 * Implementation, applied, tested and reviewed as in answer mode. A loop past
 * agents.engineer.max_turns halts the run with the reason.
 *
 * A CLI engineer in agent mode is one call instead: the CLI runs its own loop in the worktree.
 */

/** Turns an API engineer gets when agents.engineer.max_turns is not set. */
export const DEFAULT_MAX_TURNS = 20;

const NUDGE = 'You called no tool. Change the workspace with the tools, run the tests if you may, then call finish with your report.';

function turnSchema(config: ProjectConfig): AgentSchemaName {
  return mayRunTests(config, 'engineer') ? 'EngineerTurnWithTests' : 'EngineerTurn';
}

export function turnsOf(state: Pick<BuildRunState, 'toolTurns'>, label: string): ToolTurnRecord[] {
  return (state.toolTurns ?? []).filter((t) => t.label === label);
}

/** The loop so far as messages: each turn's tool calls, then each call's result. */
function transcript(turns: ToolTurnRecord[]): ChatMessage[] {
  return turns.flatMap((t): ChatMessage[] => {
    if (t.toolCalls.length === 0) return [{ role: 'assistant', content: t.text }, { role: 'user', content: NUDGE }];
    const results = (t.results ?? []).map((r): ChatMessage => ({ role: 'tool', content: r.content, toolCallId: r.id, toolName: r.name }));
    return [{ role: 'assistant', content: t.text, toolCalls: t.toolCalls, ...(t.native ? { native: t.native } : {}) }, ...results];
  });
}

/** Asks for the next turn of loop `label` (the first when there is none yet). */
export function callEngineerTurn(step: Step, proposal: ProposalRecord | null, label: string, labelFamily: string | null): void {
  const spec = freshSpec(step, 'engineer', label, labelFamily, engineerPack(step.state, proposal, label));
  requestCall(step, { ...spec, schemaName: turnSchema(step.config), messages: [...spec.messages, ...transcript(turnsOf(step.state, label))] });
}

const targetOf = (c: ToolCall): string | null => (typeof c.arguments.path === 'string' ? c.arguments.path : typeof c.arguments.command === 'string' ? c.arguments.command : null);

/** A turn's reply: its tools go to the test-runner (finish too, which also collects the changes); no tool, the next turn. */
export function onEngineerTurn(step: Step, callId: string, label: string, turn: ToolTurn): void {
  const record: ToolTurnRecord = {
    label,
    turn: turnsOf(step.state, label).length + 1,
    callId,
    toolCalls: turn.tool_calls,
    text: turn.text,
    ...(turn.native ? { native: turn.native } : {}),
    opId: null,
    results: null,
  };
  if (record.toolCalls.length === 0) {
    step.state.toolTurns = [...(step.state.toolTurns ?? []), { ...record, results: [] }];
    step.emit('engineer_tools_ran', { label, turn: record.turn, tools: [] });
    return nextTurn(step, label);
  }
  record.opId = step.opId();
  step.state.toolTurns = [...(step.state.toolTurns ?? []), record];
  step.commands.push({
    kind: 'workspace.tool',
    opId: record.opId,
    label,
    turn: record.turn,
    call_id: callId,
    calls: record.toolCalls,
    collect: record.toolCalls.some((c) => c.name === 'finish'),
    test_command: step.config.test_command ?? DEFAULT_TEST_COMMAND,
    test_timeout_s: step.config.test_timeout_s,
  });
}

/** The test-runner ran a turn's tools: finish becomes the Implementation, or the loop goes on. */
export function onToolsRan(step: Step, opId: string, results: ToolResult[], changes: ToolOpChanges | null): void {
  const turns = step.state.toolTurns ?? [];
  const i = turns.findIndex((t) => t.opId === opId);
  if (i < 0 || turns[i].results !== null) return;
  const record = turns[i];
  const finish = record.toolCalls.find((c) => c.name === 'finish');
  const outcome = finish ? finished(finish, changes) : null;
  const all = finish && !outcome?.implementation ? [...results, { id: finish.id, name: 'finish', content: outcome?.refusal ?? '', is_error: true }] : results;
  step.state.toolTurns = turns.map((t, j) => (j === i ? { ...record, results: all } : t));
  const tools = record.toolCalls.map((c) => ({ name: c.name, target: targetOf(c), is_error: all.find((r) => r.id === c.id)?.is_error ?? false }));
  step.emit('engineer_tools_ran', { label: record.label, turn: record.turn, tools });
  // The run moved on (halted, cancelled, resumed elsewhere): the results are on record, nobody is asked.
  if (awaitedRole(step.state) !== 'engineer' || alreadyRecorded(step.state, 'engineer', record.label)) return;
  if (outcome?.implementation) return onImplementation(step, { id: record.callId }, record.label, outcome.implementation);
  nextTurn(step, record.label);
}

/** The finish report and the collected changes as an Implementation, or why they are not one (the model is told). */
function finished(finish: ToolCall, changes: ToolOpChanges | null): { implementation?: Implementation; refusal?: string } {
  const report = AgentModeReport.safeParse(finish.arguments);
  if (!report.success) return { refusal: `refused: the report does not fit (${report.error.issues.map((e) => `${e.path.join('.') || '(root)'}: ${e.message}`).join('; ')}); call finish again with every field` };
  if (!changes) return { refusal: 'refused: the changes could not be collected from the workspace; call finish again' };
  const notes = changes.not_inlined.length ? `${report.data.notes}\n[changed in the worktree, not listed in files: ${changes.not_inlined.join(', ')}]`.trim() : report.data.notes;
  const impl = Implementation.safeParse({ ...report.data, notes, files: changes.files, ...(changes.deleted.length ? { deleted: changes.deleted } : {}) });
  if (!impl.success) return { refusal: `refused: ${impl.error.issues.map((e) => e.message).join('; ')} (nothing in the workspace changed); write the files first, then call finish` };
  return { implementation: impl.data };
}

function nextTurn(step: Step, label: string): void {
  const max = step.config.agents.engineer.max_turns ?? DEFAULT_MAX_TURNS;
  const used = turnsOf(step.state, label).length;
  if (used >= max) {
    return haltBuild(step, `the engineer used all ${max} of its turns (agents.engineer.max_turns) on ${label} without calling finish; the worktree keeps what it wrote`, { refs: [label] });
  }
  const proposal = latestProposal(step.state);
  if (proposal || isSolo(step.state)) callEngineerTurn(step, proposal ?? null, label, null);
}
