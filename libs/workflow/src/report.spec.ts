import { BuildDriver, critiqueBody, happyPath, proposalBody, testConfig } from './build/build-scenario.fixture';
import { haltLines, renderBuildReport } from './report';
import { foldRepeatedCriteria } from './repeated-criteria';

const audit = { calls: 8, failedCalls: 0, inputTokens: 12_000, outputTokens: 8_461, costUsd: null, seconds: 49 };

describe('renderBuildReport', () => {
  // Built inside each test, not at collection time: a mutation run then knows which test covers what.
  let d: BuildDriver;
  let report: string;
  beforeEach(() => {
    d = happyPath();
    report = renderBuildReport({ state: d.state, decisions: d.decisions, audit });
  });

  it('titles the run and states the verdict', () => {
    expect(report.startsWith('# dd-demo — run run1\n')).toBe(true);
    expect(report).toContain('Overall verdict: ACCEPT (confidence 0.82)');
    expect(report).not.toContain('Halt reason');
  });

  it('links a handed-on build back to the idea version and panel it came from, under the title; any other build has no such line', () => {
    const from = { idea_id: 'idea_0123456789', version: 2, panel_run_id: 'run_panel', recommendation: 'GO' as const };
    const r = renderBuildReport({ state: { ...d.state, status: 'halted', haltReason: 'budget' }, decisions: d.decisions, audit, handedOffFrom: from });
    expect(r.split('\n').slice(0, 4)).toEqual([
      '# dd-demo — run run1',
      '',
      'Handed on from idea idea_0123456789 version 2, panel run_panel (GO): `roundtable idea show idea_0123456789`, `roundtable report run_panel`.',
      '',
    ]);
    expect(report).not.toContain('Handed on from');
    expect(renderBuildReport({ state: d.state, decisions: d.decisions, audit, handedOffFrom: null })).toBe(report);
  });

  it('lists what was built per implementation and every test run with the fix round', () => {
    expect(report).toContain('- I1 (applied) for P2: dd.py (2 lines), test_dd.py (2 lines)');
    expect(report).toContain('- I1f1 (applied, fix round 1) for P2: dd.py (2 lines)');
    expect(report).toContain('- T1 on I1: `python -m pytest -q` → exit 1, 4 passed, 1 failed, 0 errors, 0.4 s — FAIL');
    expect(report).toContain('- T2 on I1f1 (fix round 1): `python -m pytest -q` → exit 0, 5 passed, 0 failed');
    expect(report).toContain('Fix rounds used: 1 of 1.');
  });

  it('keeps the synthesis disagreements and adds the reviser-rejected criticism as unresolved', () => {
    expect(report).toContain('1. Zero/negative peak handling — resolved: C2 ACCEPT\n   - critic: C1: division by zero\n   - reviser: P2: clamped to 0.0');
    expect(report).toContain('- P2 rejected: minor: NaN is skipped silently — no requirement mentions NaN');
  });

  it('has criteria, risks, the next experiment and an honest audit line', () => {
    expect(report).toContain('- AC1: [] -> 0.0');
    expect(report).toContain('- negative equity defined by assumption');
    expect(report).toContain('property-based test against an O(n^2) reference');
    expect(report).toContain('8 agent calls, 20,461 tokens (in 12,000 / out 8,461), cost n/a, 49 s.');
    expect(report).toContain('`roundtable calls run1`');
    expect(report).not.toMatch(/\$\d/);
  });

  it('has no Diff section when no implementation was committed on a run branch', () => {
    expect(report).not.toContain('## Diff');
  });

  it('lists the diff: per implementation its round, then every round against the base, and how to clean up a worktree', () => {
    const base = 'a'.repeat(40);
    const common = { source: 'worktree' as const, branch: 'roundtable/run1', baseCommit: base, artifactId: 'x', text: '', truncated: false };
    const [i1, i1f1] = d.state.implementations;
    const state = {
      ...d.state,
      config: { ...d.state.config, repo: '/src/calc' },
      workspace: { ...d.state.workspace, path: '/ws/run1/workspace' },
      implementations: [
        { ...i1, diff: { ...common, commit: '1'.repeat(40), roundDiffstat: [{ path: 'calc.py', added: 4, deleted: 0 }, { path: 'test_calc.py', added: 5, deleted: 0 }], diffstat: [] } },
        {
          ...i1f1,
          diff: {
            ...common,
            commit: '2'.repeat(40),
            roundDiffstat: [{ path: 'calc.py', added: 1, deleted: 1 }],
            diffstat: [{ path: 'calc.py', added: 4, deleted: 0 }, { path: 'logo.png', added: null, deleted: null }, { path: 'test_calc.py', added: 5, deleted: 0 }],
          },
        },
      ],
    };
    const r = renderBuildReport({ state, decisions: d.decisions, audit });
    expect(r).toContain(
      [
        '## Diff',
        'Branch roundtable/run1 in a git worktree of /src/calc (checked out at /ws/run1/workspace), from base aaaaaaaaaaaa.',
        '- I1 → 111111111111: calc.py +4 −0, test_calc.py +5 −0',
        '- I1f1 → 222222222222: calc.py +1 −1',
        'All rounds against the base: 3 files, +9 −0 (calc.py +4 −0, logo.png (binary), test_calc.py +5 −0).',
        'Inspect: `git -C /src/calc diff aaaaaaaaaaaa..roundtable/run1`. Clean up: `git -C /src/calc worktree remove --force /ws/run1/workspace` and `git -C /src/calc branch -D roundtable/run1`.',
        '',
        '## Test results',
      ].join('\n'),
    );
  });

  it('shows a known cost and failed calls', () => {
    const r = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { ...audit, failedCalls: 1, costUsd: 0.1, seconds: null } });
    expect(r).toContain('8 agent calls (1 failed), 20,461 tokens (in 12,000 / out 8,461), cost $0.10, n/a.');
  });

  it('lists the files each answer read before it was given, and none when nothing was read', () => {
    expect(report).not.toContain('Files read before answering');
    const f = new BuildDriver(testConfig({ repo: '/repos/app' })).begin(['calc.py']);
    f.reply(proposalBody('P1'));
    f.reply({ paths: ['calc.py', 'nope.py'] });
    f.read({ 'calc.py': 'def add(a, b):\n    return a + b\n' });
    const r = renderBuildReport({ state: f.state, decisions: f.decisions, audit });
    expect(r).toContain('Files read before answering:\n- C1 (critic): calc.py, nope.py (no such file in the workspace)\n');
  });

  it('a fact-only report says there is no synthesis and why', () => {
    const f = new BuildDriver().begin();
    f.reply(proposalBody('P1'));
    f.reply(critiqueBody('P1', 'REJECT'));
    f.fail('USAGE_LIMIT', 'limit reached');
    const r = renderBuildReport({ state: f.state, decisions: f.decisions, audit: { ...audit, calls: 3 } });
    expect(r).toContain('Overall verdict: none — no synthesis: fact-only report (the synthesizer failed, so no model wrote the report)');
    expect(r).toContain('Halt reason: synthesizer call failed (USAGE_LIMIT): limit reached');
    expect(r).toContain('Nothing was implemented.');
    expect(r).toContain('No tests were run.');
  });

  it('a needs_input report lists the open question', () => {
    const f = new BuildDriver().begin();
    f.reply(proposalBody('P1'));
    f.reply(critiqueBody('P1', 'NEEDS_EVIDENCE', { problems: [] , tests_required: ['measure the data frequency'] }));
    const r = renderBuildReport({ state: f.state, decisions: f.decisions, audit });
    expect(r).toContain('- Q1 (critic) C1 (NEEDS_EVIDENCE) on P1: test: measure the data frequency');
  });

  it('states the known cost and how many calls it leaves out, rather than a bare n/a', () => {
    const r = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { ...audit, costUsd: 0.12, unpricedCalls: 1 } });
    expect(r).toContain('8 agent calls, 20,461 tokens (in 12,000 / out 8,461), cost $0.12 + 1 call unpriced, 49 s.');
    const none = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { ...audit, costUsd: null, unpricedCalls: 8 } });
    expect(none).toContain('cost n/a (8 calls unpriced), 49 s.');
  });

  it("ends its audit with the record's head hash and how to verify it; none without a head", () => {
    const head = 'ab'.repeat(32);
    const r = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { ...audit, headHash: head } });
    expect(r).toContain(`Record head hash \`${head}\`: \`roundtable verify ${d.state.runId}\` recomputes the chain.`);
    expect(renderBuildReport({ state: d.state, decisions: d.decisions, audit: { ...audit, headHash: null } })).not.toContain('Record head hash');
  });

  it('lists a restated acceptance criterion once, naming the ids that repeat it (the dd-demo lock)', () => {
    const folded = foldRepeatedCriteria([
      { id: 'AC1', text: '[] -> 0.0' },
      { id: 'AC4', text: '[0, 1, 2] -> 0.0 and [-5, -3, -1] -> 0.0 (monotone from a non-positive start)' },
      { id: 'AC5', text: '[100, 120, 90, 60] -> 0.5 (ends at trough)' },
      { id: 'AC6', text: '[100, 80, 110, 55, 120, 108] -> 0.5 (largest of several drawdowns, not the first or last)' },
      { id: 'AC8', text: '[100, 120, 90, 60] -> 0.5 (ends at trough; catches a loop that stops one element early)' },
      { id: 'AC9', text: '[100, 80, 110, 55, 120, 108] -> 0.5' },
      { id: 'AC10', text: '[0, 1, 2] -> 0.0' },
    ]);
    expect(folded.map((c) => [c.id, c.repeatedBy])).toEqual([
      ['AC1', []],
      ['AC4', ['AC10']],
      ['AC5', ['AC8']],
      ['AC6', ['AC9']],
    ]);
    const state = { ...d.state, criteria: [{ id: 'AC1', text: '[] -> 0.0' }, { id: 'AC2', text: '[] -> 0.0 (empty)' }] };
    const r = renderBuildReport({ state, decisions: d.decisions, audit });
    expect(r).toContain('- AC1: [] -> 0.0 (restated as AC2)\n');
    expect(r).not.toContain('- AC2:');
  });

  it('a halted run says how to resume it; a resumed run lists its halts', () => {
    const halt = { from: 'IMPLEMENT', to: 'HALTED', reason: 'budget: max_calls 8 reached', refs: [] };
    expect(haltLines('run1', 'halted', [halt])).toEqual([
      'Resume: `roundtable resume run1` (POST /v1/runs/run1/resume), raising the cap that stopped it with e.g. `--max-calls N`; recorded work is reused, not re-billed.',
    ]);
    expect(haltLines('run1', 'done', [halt])).toEqual(['Resumed after 1 halt:', '- at IMPLEMENT: budget: max_calls 8 reached']);
    expect(haltLines('run1', 'halted', [halt, { ...halt, from: 'FIX' }])).toContain('- at IMPLEMENT: budget: max_calls 8 reached');
    expect(haltLines('run1', 'done', [])).toEqual([]);
    const r = renderBuildReport({ state: { ...d.state, status: 'halted', haltReason: 'budget' }, decisions: [...d.decisions, halt as never], audit });
    expect(r).toContain('Halt reason: budget\nResume: `roundtable resume run1`');
  });

  it('offers a resume exactly where the workflow takes one: a needs_input or failed build too, with what to do first', () => {
    for (const status of ['needs_input', 'failed']) {
      const r = renderBuildReport({ state: { ...d.state, status: status as never }, decisions: d.decisions, audit });
      expect(r).toContain('Resume: `roundtable resume run1` (POST /v1/runs/run1/resume) once what stopped it is dealt with, or from a stage with `--from STAGE`');
    }
    for (const status of ['done', 'cancelled']) {
      expect(renderBuildReport({ state: { ...d.state, status: status as never }, decisions: d.decisions, audit })).not.toContain('Resume:');
    }
    expect(haltLines('run1', 'failed', [], ['halted'])).toEqual([]);
  });

  it('keeps what subscription calls would have cost at list price apart from what was billed per call', () => {
    const r = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { ...audit, costUsd: 0.1, subscriptionCostUsd: 0.06, unpricedCalls: 2 } });
    expect(r).toContain('cost $0.04 billed per call, $0.06 at list price on subscriptions (not billed per call) + 2 calls unpriced, 49 s.');
    const none = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { ...audit, costUsd: 0.1, subscriptionCostUsd: null } });
    expect(none).toContain('cost $0.10, 49 s.');
  });
});
