import type { ProjectConfigInput } from '@roundtable/contracts';
import {
  BuildDriver,
  critiqueBody,
  implementationBody,
  problem,
  proposalBody,
  reviewBody,
  synthesisBody,
  testConfig,
  testResult,
} from './build-scenario.fixture';
import type { ImplementationDiff, StepResult } from './build-types';
import { criteriaEdits } from './gates.stage';
import { renderBuildReport } from '../report';

const REPO = { repo: '/srv/repos/app', merge: { into: 'main' } } satisfies Partial<ProjectConfigInput>;

const diff = (source: ImplementationDiff['source'] = 'worktree'): ImplementationDiff => ({
  source,
  branch: 'roundtable/run1',
  baseCommit: 'base000',
  commit: 'c0ffee1',
  roundDiffstat: [{ path: 'dd.py', added: 2, deleted: 0 }],
  diffstat: [{ path: 'dd.py', added: 2, deleted: 0 }],
  artifactId: 'run1-diff1',
  text: '+def max_drawdown',
  truncated: false,
});

/** P1 → C1 ACCEPT: the criteria are locked (AC1 … from the proposal's and the critic's tests). */
function toCriteria(over: Partial<ProjectConfigInput> = {}): { d: BuildDriver; r: StepResult } {
  const d = new BuildDriver(testConfig({ ...REPO, approvals: ['criteria'], ...over })).begin();
  d.reply(proposalBody('P1'));
  const r = d.reply(critiqueBody('P1', 'ACCEPT'));
  return { d, r };
}

/** From the pending engineer call to a pending synthesis with the implementation committed on a worktree branch. */
function implementAndReview(d: BuildDriver, tests = testResult(0, { passed: 5 }), source: ImplementationDiff['source'] = 'worktree'): void {
  d.reply(implementationBody('P1'));
  const op = d.lastOp;
  if (op.kind !== 'workspace.apply') throw new Error(`expected workspace.apply, got ${op.kind}`);
  d.step({ type: 'files_applied', opId: op.opId, implementationLabel: op.implementationLabel, tree: ['dd.py'], diff: diff(source) });
  d.tests(tests);
  d.reply(reviewBody('I1'));
}

const approve = (gate: string, over: Record<string, unknown> = {}) => ({ type: 'approval' as const, gate, decision: 'approve' as const, note: null, approver: 'alice', ...over });

describe('build: the criteria gate', () => {
  it('waits after the criteria are locked, holding no call, with the criteria to look at', () => {
    const { r } = toCriteria();
    expect(r.state).toMatchObject({ status: 'awaiting_approval', stage: 'CRITIQUE', gate: { name: 'criteria' } });
    expect(r.commands).toEqual([]);
    expect(r.events.map((e) => e.type)).toEqual(expect.arrayContaining(['criteria_locked', 'approval_requested']));
    const requested = r.events.find((e) => e.type === 'approval_requested')!;
    expect(requested.payload).toEqual({ gate: 'criteria', subject: { proposal: 'P1', criteria: r.state.criteria } });
    expect(r.decisions.at(-1)!.reason).toMatch(/^waiting at the criteria gate for a person's approval: C1 ACCEPTs P1/);
  });

  it('approved as it was: the engineer is called, and the decision names the approver', () => {
    const { d } = toCriteria();
    const r = d.step(approve('criteria', { note: 'fine' }));
    expect(r.state).toMatchObject({ status: 'running', stage: 'IMPLEMENT', gate: null });
    expect(r.commands[0]).toMatchObject({ role: 'engineer', label: 'I1' });
    expect(r.events).toContainEqual({ type: 'approval_given', payload: { gate: 'criteria', approver: 'alice', note: 'fine' } });
    expect(r.decisions[0].reason).toBe('criteria gate approved by alice: fine');
  });

  it('approved with an edit: the engineer and then the validator see the approved criteria, and the event says what changed', () => {
    const { d, r: locked } = toCriteria();
    const [ac1, ac2] = locked.state.criteria!;
    const r = d.step(approve('criteria', { criteria: [{ id: ac1.id, text: 'an empty series returns 0.0 exactly' }, { text: 'a single value returns 0.0' }] }));
    const given = r.events.find((e) => e.type === 'approval_given')!.payload as { edits: unknown };
    expect(given.edits).toEqual({
      added: [{ id: `AC${locked.state.criteria!.length + 1}`, text: 'a single value returns 0.0' }],
      dropped: locked.state.criteria!.slice(1),
      reworded: [{ id: 'AC1', from: ac1.text, to: 'an empty series returns 0.0 exactly' }],
    });
    expect(r.state.criteria!.map((c) => c.text)).toEqual(['an empty series returns 0.0 exactly', 'a single value returns 0.0']);
    expect(d.prompt()).toContain('AC1: an empty series returns 0.0 exactly');
    expect(d.prompt()).not.toContain(`${ac2.id}: ${ac2.text}`);
    d.reply(implementationBody('P1'));
    d.applied();
    d.tests(testResult(0));
    expect(d.pendingCall!.role).toBe('validator');
    expect(d.prompt()).toContain('a single value returns 0.0');
  });

  it('refused: the run halts, and the synthesizer closes it', () => {
    const { d } = toCriteria();
    const r = d.step({ ...approve('criteria'), decision: 'reject', note: 'AC2 is wrong' });
    expect(r.events).toContainEqual({ type: 'approval_refused', payload: { gate: 'criteria', approver: 'alice', note: 'AC2 is wrong' } });
    expect(r.state.haltReason).toBe('the criteria were refused at the criteria gate by alice: AC2 is wrong');
    expect(r.commands[0]).toMatchObject({ role: 'synthesizer' });
    expect(r.state.gate).toBeNull();
  });

  it('a decision about another gate, or about a run not waiting, changes nothing', () => {
    const { d } = toCriteria();
    expect(d.step(approve('merge')).events).toEqual([]);
    d.step(approve('criteria'));
    const again = d.step(approve('criteria'));
    expect(again.events).toEqual([]);
    expect(again.commands).toEqual([]);
  });

  it('a halt while waiting (the approval timeout) closes the run through the synthesizer', () => {
    const { d } = toCriteria();
    const r = d.step({ type: 'halt', reason: 'approval_timeout_s (60 s) ran out at the criteria gate' });
    expect(r.state).toMatchObject({ status: 'running', gate: null, haltReason: 'approval_timeout_s (60 s) ran out at the criteria gate' });
    expect(r.commands[0]).toMatchObject({ role: 'synthesizer' });
  });

  it('without the gate, the engineer is called at once (nothing waits)', () => {
    const d = new BuildDriver(testConfig(REPO)).begin();
    d.reply(proposalBody('P1'));
    const r = d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(r.state.status).toBe('running');
    expect(r.commands[0]).toMatchObject({ role: 'engineer' });
  });
});

describe('build: the merge gate', () => {
  function toMergeGate(over: Partial<ProjectConfigInput> = {}) {
    const d = new BuildDriver(testConfig({ ...REPO, approvals: ['merge'], ...over })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    implementAndReview(d);
    return { d, r: d.reply(synthesisBody('ACCEPT')) };
  }

  it('waits after the synthesis with the branch, diff, tests, synthesis and checks to look at; the run has not completed', () => {
    const { r } = toMergeGate();
    expect(r.state).toMatchObject({ status: 'awaiting_approval', stage: 'MERGE', gate: { name: 'merge' } });
    expect(r.events.map((e) => e.type)).not.toContain('run_completed');
    const subject = r.events.find((e) => e.type === 'approval_requested')!.payload.subject as Record<string, unknown>;
    expect(subject).toMatchObject({
      branch: 'roundtable/run1',
      commit: 'c0ffee1',
      into: 'main',
      strategy: 'merge',
      diff_artifact_id: 'run1-diff1',
      tests: { label: 'T1', passed: 5, failed: 0 },
      synthesis: { label: 'S1', verdict: 'ACCEPT' },
    });
    expect((subject.solved as { ok: boolean }[]).map((c) => c.ok)).toEqual([true, true, true, true]);
  });

  it('approved: the merge op is queued with the approver in the commit message', () => {
    const { d } = toMergeGate();
    const r = d.step(approve('merge'));
    expect(r.commands).toEqual([expect.objectContaining({ kind: 'workspace.merge', into: 'main', strategy: 'merge', approvedBy: 'alice', message: expect.stringContaining('Approved-by: alice') })]);
    expect(r.state).toMatchObject({ status: 'running', stage: 'MERGE' });
  });

  it('merged: merge_completed, then the run ends done with its verdict', () => {
    const { d } = toMergeGate();
    const op = d.step(approve('merge')).commands[0] as { opId: string };
    const r = d.step({ type: 'merge_finished', opId: op.opId, outcome: { merged: true, into: 'main', strategy: 'merge', commit: 'm3rge00', previous: 'base000', reason: null, code: null } });
    expect(r.events.map((e) => e.type)).toEqual(['merge_completed', 'stage_changed', 'run_completed']);
    expect(r.events[0].payload).toEqual({ into: 'main', strategy: 'merge', commit: 'm3rge00', previous: 'base000' });
    expect(r.events[2].payload).toEqual({ status: 'done', verdict: 'ACCEPT', confidence: 0.82 });
    expect(r.decisions[0].reason).toBe('merged into main (merge) at m3rge00');
  });

  it('refused by the test-runner (a conflict): merge_refused with the reason, and the run ends done', () => {
    const { d } = toMergeGate();
    const op = d.step(approve('merge')).commands[0] as { opId: string };
    const outcome = { merged: false, into: 'main', strategy: 'merge', commit: null, previous: null, reason: 'main moved on and conflicts in dd.py', code: 'conflict' };
    const r = d.step({ type: 'merge_finished', opId: op.opId, outcome });
    expect(r.events[0]).toEqual({ type: 'merge_refused', payload: { reason: 'main moved on and conflicts in dd.py', code: 'conflict' } });
    expect(r.state).toMatchObject({ status: 'done', stage: 'DONE' });
  });

  it('rejected by a person: nothing is merged and the run ends done', () => {
    const { d } = toMergeGate();
    const r = d.step({ ...approve('merge'), decision: 'reject', note: 'not this week' });
    expect(r.commands).toEqual([]);
    expect(r.state).toMatchObject({ status: 'done', stage: 'DONE', gate: null });
    expect(r.decisions.at(-1)!.reason).toBe('the merge was refused by alice: not this week; the run branch is left unmerged');
  });

  it('a branch that is not a worktree is never offered for a merge', () => {
    const d = new BuildDriver(testConfig({ ...REPO, approvals: ['merge'] })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    implementAndReview(d, testResult(0, { passed: 5 }), 'copy');
    const r = d.reply(synthesisBody('ACCEPT'));
    expect(r.events).toContainEqual({ type: 'merge_refused', payload: expect.objectContaining({ code: 'not_git' }) });
    expect(r.state.status).toBe('done');
  });
});

describe('build: autonomy 3', () => {
  function solvedRun(tests = testResult(0, { passed: 5 })) {
    const d = new BuildDriver(testConfig({ ...REPO, autonomy: 3 })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    d.reply(implementationBody('P1'));
    const op = d.lastOp as { opId: string; implementationLabel: string };
    d.step({ type: 'files_applied', opId: op.opId, implementationLabel: op.implementationLabel, tree: ['dd.py'], diff: diff() });
    d.tests(tests);
    return d;
  }

  it('merges a solved run by itself', () => {
    const d = solvedRun();
    d.reply(reviewBody('I1'));
    const r = d.reply(synthesisBody('ACCEPT'));
    expect(r.commands).toEqual([expect.objectContaining({ kind: 'workspace.merge', approvedBy: 'autonomy 3' })]);
    expect(r.decisions.at(-1)!.reason).toMatch(/autonomy 3: the run is solved/);
  });

  it('refuses a run whose tests did not pass, naming the check', () => {
    const d = new BuildDriver(testConfig({ ...REPO, autonomy: 3, budget: { max_fix_rounds: 0 } })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    d.reply(implementationBody('P1'));
    const op = d.lastOp as { opId: string; implementationLabel: string };
    d.step({ type: 'files_applied', opId: op.opId, implementationLabel: op.implementationLabel, tree: ['dd.py'], diff: diff() });
    d.tests(testResult(1));
    d.reply(reviewBody('I1'));
    const r = d.reply(synthesisBody('ACCEPT'));
    expect(r.commands).toEqual([]);
    const refused = r.events.find((e) => e.type === 'merge_refused')!.payload as { reason: string; code: string };
    expect(refused.code).toBe('not_solved');
    expect(refused.reason).toMatch(/"tests executed and passed" fails: T1 \(python -m pytest -q\): 4 passed, 1 failed/);
    expect(r.state.status).toBe('done');
  });
});

describe('build: a branch with nothing to merge into', () => {
  const endWith = (source: ImplementationDiff['source']) => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    implementAndReview(d, testResult(0, { passed: 5 }), source);
    return d.reply(synthesisBody('ACCEPT'));
  };

  it.each(['empty', 'copy'] as const)('a done run on a workspace of source %s is offered as a bundle and a patch (the export op)', (source) => {
    const r = endWith(source);
    expect(r.state.status).toBe('done');
    expect(r.commands).toEqual([{ kind: 'workspace.export', opId: expect.any(String) }]);
  });

  it('a worktree run exports nothing: its branch is in the repository', () => {
    expect(endWith('worktree').commands).toEqual([]);
  });
});

describe('build: answers to open questions', () => {
  function needsInput() {
    const d = new BuildDriver(testConfig({ budget: { max_rounds: 1 } })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'REVISE', { problems: [problem('major', 'edge case')] }));
    d.reply(proposalBody('P2'));
    d.reply(critiqueBody('P2', 'REVISE', { problems: [problem('blocker', 'is a negative equity an error?')] }));
    expect(d.state.status).toBe('needs_input');
    return d;
  }
  const answer = (over: Record<string, unknown> = {}) => ({ type: 'answer' as const, questionId: 'Q1', answer: 'treat negative equity as an error', answeredBy: 'bob', ...over });

  it('the last answer resumes the run at REVISE with one more round, and the reviser sees the answer as a person\'s evidence', () => {
    const d = needsInput();
    const calls = d.calls.length;
    const r = d.step(answer());
    expect(r.events.map((e) => e.type)).toEqual(['question_answered', 'run_resumed', 'stage_changed', 'agent_call_queued']);
    expect(r.events[1].payload).toEqual({ at: 'REVISE', rerun: false, caps: { max_rounds: 2 } });
    expect(r.records).toContainEqual({ kind: 'question_answer', index: 0, answer: 'treat negative equity as an error', answeredBy: 'bob' });
    expect(r.state).toMatchObject({ status: 'running', round: 2, haltReason: null });
    expect(d.calls.length).toBe(calls + 1);
    expect(r.commands[0]).toMatchObject({ role: 'reviser', label: 'P3' });
    expect(d.prompt()).toMatch(/<evidence id="Q1" type="answer_from_a_person" trust="untrusted">\nQuestion \(critic\): .*is a negative equity an error\?.*\nAnswer \(from bob, a person\): treat negative equity as an error\n<\/evidence>/);
  });

  it('an answer to an unknown question, or a second answer, changes nothing', () => {
    const d = needsInput();
    expect(d.step(answer({ questionId: 'Q9' })).events).toEqual([]);
    expect(d.step(answer({ questionId: 'nonsense' })).events).toEqual([]);
    d.step(answer());
    expect(d.step(answer({ answer: 'changed my mind' })).events).toEqual([]);
  });

  it('NEEDS_EVIDENCE with on_needs_evidence: ask stops as needs_input, and the answer goes on at REVISE', () => {
    const d = new BuildDriver(testConfig({ on_needs_evidence: 'ask' })).begin();
    d.reply(proposalBody('P1'));
    const stopped = d.reply(critiqueBody('P1', 'NEEDS_EVIDENCE', { problems: [problem('major', 'what is the data source?')] }));
    expect(stopped.state).toMatchObject({ status: 'needs_input', stage: 'HALTED' });
    expect(stopped.commands).toEqual([]);
    const r = d.step(answer({ answer: 'daily closes from the broker export' }));
    expect(r.commands[0]).toMatchObject({ role: 'reviser', label: 'P2' });
    expect(d.prompt()).toContain('daily closes from the broker export');
  });

  it('NEEDS_EVIDENCE by default ends the run with the question recorded, as before', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    const r = d.reply(critiqueBody('P1', 'NEEDS_EVIDENCE', { problems: [problem('major', 'what is the data source?')] }));
    expect(r.commands[0]).toMatchObject({ role: 'synthesizer' });
  });

  it('prompts carry no answers section while nobody answered', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    expect(d.prompt()).not.toContain('Answers from people');
  });
});

describe('criteriaEdits', () => {
  const locked = [
    { id: 'AC1', text: 'a' },
    { id: 'AC2', text: 'b' },
    { id: 'AC9', text: 'c' },
  ];
  it('keeps ids, numbers new ones after the highest, and lists drops in the locked order', () => {
    expect(criteriaEdits(locked, [{ id: 'AC9', text: 'c' }, { text: ' d ' }, { id: 'AC1', text: 'a2' }])).toEqual({
      criteria: [
        { id: 'AC9', text: 'c' },
        { id: 'AC10', text: 'd' },
        { id: 'AC1', text: 'a2' },
      ],
      edits: { added: [{ id: 'AC10', text: 'd' }], dropped: [{ id: 'AC2', text: 'b' }], reworded: [{ id: 'AC1', from: 'a', to: 'a2' }] },
    });
  });
  it('an unchanged list is no edit; an unknown id is a new criterion', () => {
    expect(criteriaEdits(locked, locked).edits).toEqual({ added: [], dropped: [], reworded: [] });
    expect(criteriaEdits(locked, [...locked, { id: 'AC77', text: 'e' }]).edits.added).toEqual([{ id: 'AC10', text: 'e' }]);
  });
});

describe('the report of a gated run', () => {
  it('shows the criteria edit with the approver, the merge, and the four checks', () => {
    const d = new BuildDriver(testConfig({ ...REPO, approvals: ['criteria', 'merge'] })).begin();
    d.reply(proposalBody('P1'));
    const locked = d.reply(critiqueBody('P1', 'ACCEPT')).state.criteria!;
    d.step(approve('criteria', { note: 'tighter', criteria: [{ id: 'AC1', text: 'exactly 0.0 for []' }, ...locked.slice(1), { text: 'one value -> 0.0' }] }));
    implementAndReview(d);
    d.reply(synthesisBody('ACCEPT'));
    const op = d.step(approve('merge')).commands[0] as { opId: string };
    const r = d.step({ type: 'merge_finished', opId: op.opId, outcome: { merged: true, into: 'main', strategy: 'merge', commit: 'm3rge0000000abc', previous: 'base000000000def', reason: null, code: null } });
    const report = renderBuildReport({ state: r.state, decisions: d.decisions, audit: { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, seconds: 0 } });
    const section = report.slice(report.indexOf('## People in the loop'), report.indexOf('## Remaining risks'));
    expect(section).toContain('- criteria gate: approved by alice — "tighter"');
    expect(section).toContain(`  - reworded AC1: "${locked[0].text}" → "exactly 0.0 for []"`);
    expect(section).toContain(`  - added AC${locked.length + 1}: "one value -> 0.0"`);
    expect(section).toContain('- merge gate: approved by alice');
    expect(section).toContain('- Merged into main (merge) at m3rge0000000, from base00000000.');
    expect(section).toContain('"Solved": 4 of 4 checks hold.');
    expect(section).toContain('- [x] tests executed and passed: T1 (python -m pytest -q): 5 passed, 0 failed, 0 errors, exit code 0');
  });

  it('has no such section for a run without gates, merge or answers', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    const r = d.reply(critiqueBody('P1', 'REJECT'));
    const done = d.reply(synthesisBody('REJECT'));
    expect(r.state.approvals).toBeUndefined();
    expect(renderBuildReport({ state: done.state, decisions: d.decisions, audit: { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, seconds: 0 } })).not.toContain('## People in the loop');
  });
});
