import { type ExperimentDetail, Preregistration } from '@roundtable/contracts';
import { renderExperimentReport } from './experiment-report';

const prereg = Preregistration.parse({
  title: 'Momentum out of sample',
  hypothesis: 'The 12-1 momentum signal keeps a Sharpe above 0.5 out of sample',
  expected_result: 'sharpe_oos >= 0.5',
  method: { description: 'walk-forward backtest', command: 'python backtest.py --oos', metrics: ['sharpe_oos', 'max_dd'] },
  success_criteria: [{ expr: 'sharpe_oos >= 0.5' }],
  failure_criteria: [{ expr: 'max_dd > 0.25' }],
  data: 'daily closes 2010-2024',
});

function locked(): ExperimentDetail {
  return {
    id: 'exp_0123456789',
    project: 'backtest',
    title: prereg.title,
    status: 'locked',
    hypothesis_id: null,
    repo: '/srv/strategy',
    commit: 'a'.repeat(40),
    preregistration: prereg,
    prereg_hash: 'f'.repeat(64),
    locked_at: '2026-12-01T10:00:00.000Z',
    source: null,
    run_id: null,
    runs: [],
    result: null,
    decision: null,
    interpretation: null,
    interpreted_at: null,
    created_by: 'writer',
    created_at: '2026-12-01T10:00:00.000Z',
  };
}

function decided(): ExperimentDetail {
  return {
    ...locked(),
    status: 'decided',
    run_id: 'run_1',
    source: { idea_id: 'idea_1', panel_run_id: 'run_p' },
    result: { prereg_hash: 'f'.repeat(64), commit: 'a'.repeat(40), metrics: { sharpe_oos: 0.31, max_dd: 0.3 }, exit_code: 0, duration_s: 12, output_artifact_id: 'art_1', output_tail: '{}', run_id: 'run_1' },
    decision: 'KILL',
    interpretation: {
      criteria: [
        { id: 'S1', kind: 'success', expr: 'sharpe_oos >= 0.5', holds: false, reading: { holds: false, evidence: 'sharpe_oos is 0.31' } },
        { id: 'F1', kind: 'failure', expr: 'max_dd > 0.25', holds: true, reading: null },
      ],
      computed: 'KILL',
      interpreter_decision: 'INCONCLUSIVE',
      override_request: { decision: 'INCONCLUSIVE', reason: 'the drawdown is one crash' },
      summary: 'Fails out of sample.',
      review: { agrees: false, disagreements: ['the drawdown is not one crash'], summary: 'The reading excuses the drawdown.' },
      open_question: 'Is the 2020 crash in sample?',
      notes: [],
      trading_critique: null,
    },
    interpreted_at: '2026-12-02T10:00:00.000Z',
  };
}

describe('renderExperimentReport', () => {
  it('a locked experiment: the plan, the pin, the criteria not evaluated, and says what is missing', () => {
    const md = renderExperimentReport(locked());
    expect(md).toContain('# Experiment exp_0123456789: Momentum out of sample');
    expect(md).toContain('## Hypothesis\nThe 12-1 momentum signal keeps a Sharpe above 0.5 out of sample');
    expect(md).toContain('Command: `python backtest.py --oos`');
    expect(md).toContain(`Commit: ${'a'.repeat(40)}`);
    expect(md).toContain(`Preregistration hash: ${'f'.repeat(64)}`);
    expect(md).toContain('| S1 | success | `sharpe_oos >= 0.5` | not evaluated | not read yet |');
    expect(md).toContain('**none yet**');
    expect(md).toContain('No review yet.');
    expect(md).toContain('No result yet.');
    expect(md).toContain('Preregistered directly.');
  });

  it('a decided one: code\'s holds beside the reading, the decision in bold, the override not applied, the review, the metrics, the source', () => {
    const md = renderExperimentReport(decided());
    expect(md).toContain('| S1 | success | `sharpe_oos >= 0.5` | no | does not hold: sharpe_oos is 0.31 |');
    expect(md).toContain('| F1 | failure | `max_dd > 0.25` | yes | no reading given |');
    expect(md).toContain('## Decision\n**KILL** (computed by code from the criteria)');
    expect(md).toContain('Override request (not applied): INCONCLUSIVE — the drawdown is one crash');
    expect(md).toContain('The critic disagrees: The reading excuses the drawdown.');
    expect(md).toContain('## Open question\nIs the 2020 crash in sample?');
    expect(md).toContain('| max_dd | 0.3 |\n| sharpe_oos | 0.31 |');
    expect(md).toContain('hash matches the lock');
    expect(md).toContain("Idea idea_1's recommended experiment (panel run run_p).");
  });

  it('a draft has no preregistration and says so', () => {
    const md = renderExperimentReport({ ...locked(), status: 'draft', title: null, preregistration: null, prereg_hash: null, locked_at: null, commit: null });
    expect(md).toContain('# Experiment exp_0123456789: untitled draft');
    expect(md).toContain('None yet: a draft waits');
    expect(md).toContain('Preregistration hash: none (not locked)');
    expect(md).not.toContain('## Criteria');
  });
});
