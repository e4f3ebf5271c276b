import type { ToolCall } from '@roundtable/contracts';
import { BuildDriver, critiqueBody, proposalBody, testConfig } from './build-scenario.fixture';
import type { ChatMessage, FinishedCall } from './build-types';

/** The engineer in agent mode on an API provider: the engine's tool loop, one recorded call a turn (tool-loop.ts). */

const REPORT = { proposal_id: 'P1', test_command: 'python -m pytest -q', notes: 'max_drawdown with tests', assumptions: [], known_gaps: [] };
const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({ id, name, arguments: args });

function agentRun(engineer: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): BuildDriver {
  const base = testConfig();
  const d = new BuildDriver(testConfig({ agents: { ...base.agents, engineer: { ...base.agents.engineer, mode: 'agent', ...engineer } }, ...extra } as never)).begin(['dd.py']);
  d.reply(proposalBody('P1'));
  d.reply(critiqueBody('P1', 'ACCEPT'));
  return d;
}

/** The test-runner's answer to the last tool op: `content` per call id (every call ok). */
function toolsRan(d: BuildDriver, content: Record<string, string>, changes: { files: { path: string; content: string }[]; deleted?: string[] } | null = null) {
  const op = d.lastOp;
  if (op.kind !== 'workspace.tool') throw new Error(`expected workspace.tool, got ${op.kind}`);
  const results = op.calls.filter((c) => c.name !== 'finish').map((c) => ({ id: c.id, name: c.name, content: content[c.id] ?? 'ok', is_error: false }));
  const collected = changes ? { files: changes.files, deleted: changes.deleted ?? [], not_inlined: [], diff_artifact_id: `${op.opId}-diff` } : null;
  return d.step({ type: 'tools_ran', opId: op.opId, results, changes: collected });
}

describe('build: the engineer in agent mode on an API provider (a tool loop)', () => {
  it('asks turn by turn with the tools offered, runs each turn\'s tools at the test-runner, and replays the loop in the next prompt', () => {
    const d = agentRun({}, { permissions: { engineer: { workspace: 'write', run_tests: true } } });
    expect(d.pendingCall).toMatchObject({ role: 'engineer', label: 'I1', schemaName: 'EngineerTurnWithTests' });
    expect(d.prompt()).toContain('call finish once with your report');

    const turn1 = d.reply({ tool_calls: [call('t1', 'read_file', { path: 'dd.py' })], text: 'reading first' });
    expect(turn1.commands).toEqual([
      expect.objectContaining({ kind: 'workspace.tool', label: 'I1', turn: 1, calls: [call('t1', 'read_file', { path: 'dd.py' })], collect: false, test_command: 'python -m pytest -q' }),
    ]);
    const after1 = toolsRan(d, { t1: 'def max_drawdown(e): pass\n' });
    expect(after1.events).toContainEqual(expect.objectContaining({ type: 'engineer_tools_ran', payload: { label: 'I1', turn: 1, tools: [{ name: 'read_file', target: 'dd.py', is_error: false }] } }));
    // Turn 2 replays turn 1: the assistant's call, then its result, after the same prompt.
    const turn2 = d.pendingCall!;
    expect(turn2).toMatchObject({ label: 'I1', schemaName: 'EngineerTurnWithTests' });
    expect(turn2.messages.slice(-2)).toEqual<ChatMessage[]>([
      { role: 'assistant', content: 'reading first', toolCalls: [call('t1', 'read_file', { path: 'dd.py' })] },
      { role: 'tool', content: 'def max_drawdown(e): pass\n', toolCallId: 't1', toolName: 'read_file' },
    ]);
    // The replayed arguments count against the reservation like the prompt does.
    expect(turn2.estimatedTokens).toBeGreaterThan(d.calls[d.calls.length - 2].estimatedTokens);

    d.reply({ tool_calls: [call('t2', 'write_file', { path: 'dd.py', content: 'def max_drawdown(e):\n    return 0.0\n' }), call('t3', 'finish', REPORT)], text: '' });
    expect(d.lastOp).toMatchObject({ kind: 'workspace.tool', turn: 2, collect: true });
    const done = toolsRan(d, { t2: 'wrote dd.py (38 bytes)' }, { files: [{ path: 'dd.py', content: 'def max_drawdown(e):\n    return 0.0\n' }] });
    // finish became the Implementation: the collected files and the report, applied as in answer mode.
    expect(done.records).toContainEqual(
      expect.objectContaining({ kind: 'implementation', record: expect.objectContaining({ label: 'I1', body: expect.objectContaining({ files: [{ path: 'dd.py', content: 'def max_drawdown(e):\n    return 0.0\n' }], notes: 'max_drawdown with tests' }) }) }),
    );
    expect(done.commands).toEqual([expect.objectContaining({ kind: 'workspace.apply', implementationLabel: 'I1' })]);
  });

  it("replays a turn's native record (a thinking model's signature) on its assistant message", () => {
    const d = agentRun();
    const native = { type: 'anthropic', content: [{ type: 'thinking', thinking: 'dd.py first', signature: 'sig' }] };
    d.reply({ tool_calls: [call('t1', 'read_file', { path: 'dd.py' })], text: '', native });
    toolsRan(d, { t1: 'x = 1\n' });
    expect(d.pendingCall!.messages.at(-2)).toEqual({ role: 'assistant', content: '', toolCalls: [call('t1', 'read_file', { path: 'dd.py' })], native });
  });

  it('offers no run_tests where permissions.engineer.run_tests is false (the default)', () => {
    expect(agentRun().pendingCall).toMatchObject({ schemaName: 'EngineerTurn' });
  });

  it('refuses a finish with nothing changed and tells the model why, in the next turn', () => {
    const d = agentRun();
    d.reply({ tool_calls: [call('f1', 'finish', REPORT)], text: '' });
    const r = toolsRan(d, {}, { files: [] });
    expect(r.records.some((x) => x.kind === 'implementation')).toBe(false);
    expect(d.pendingCall!.messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'f1', toolName: 'finish', content: expect.stringMatching(/^refused: .*write the files first, then call finish/) });
  });

  it('refuses a finish whose report does not fit, naming the field', () => {
    const d = agentRun();
    d.reply({ tool_calls: [call('f1', 'finish', { notes: 'done' })], text: '' });
    toolsRan(d, {}, { files: [{ path: 'dd.py', content: 'x = 1\n' }] });
    expect(d.pendingCall!.messages.at(-1)!.content).toMatch(/^refused: the report does not fit \(proposal_id: .*\); call finish again with every field/);
  });

  it('nudges a turn that called no tool, and halts cleanly at max_turns with the reason', () => {
    const d = agentRun({ max_turns: 2 });
    d.reply({ tool_calls: [], text: 'I think I am done' });
    expect(d.pendingCall!.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'I think I am done' },
      { role: 'user', content: expect.stringMatching(/^You called no tool/) },
    ]);
    d.reply({ tool_calls: [call('t1', 'list_files')], text: '' });
    const halted = toolsRan(d, { t1: 'dd.py' });
    expect(halted.state.haltReason).toMatch(/the engineer used all 2 of its turns \(agents\.engineer\.max_turns\) on I1 without calling finish/);
    // Halted as every halt is: no third turn, only the closing synthesis (which ends the run as halted).
    expect(d.pendingCall).toMatchObject({ role: 'synthesizer' });
    expect(d.calls.filter((c) => c.role === 'engineer')).toHaveLength(2);
  });

  it('takes a duplicate delivery of a turn once', () => {
    const d = agentRun();
    const c = d.pendingCall!;
    const finished: FinishedCall = {
      id: c.callId, role: c.role, stage: c.stage, label: c.label, attempt: 1, provider: c.provider, model: c.model, status: 'completed',
      valid: true, parsed: { tool_calls: [call('t1', 'list_files')], text: '' }, responseText: null, error: null, errorCode: null, schemaName: c.schemaName, messages: c.messages,
    };
    expect(d.step({ type: 'agent_call_finished', call: finished }).commands).toEqual([expect.objectContaining({ kind: 'workspace.tool' })]);
    const again = d.step({ type: 'agent_call_finished', call: finished });
    expect(again.commands).toEqual([]);
    expect(again.events).toEqual([]);
    expect(d.state.toolTurns).toHaveLength(1);
  });
});
