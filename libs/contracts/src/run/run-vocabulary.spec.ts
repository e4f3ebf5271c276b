import { BuildRole, RunStatus, Stage, TERMINAL_RUN_STATUSES } from './run-vocabulary';

describe('run vocabulary', () => {
  it('has the seed §8 stages in order', () => {
    expect(Stage.options).toEqual(['INIT', 'PROPOSE', 'CRITIQUE', 'REVISE', 'IMPLEMENT', 'TEST', 'FIX', 'REVIEW', 'SYNTHESIZE', 'MERGE', 'DONE', 'HALTED']);
  });

  it('has the seven build roles, the optional reviewer after the validator', () => {
    expect(BuildRole.options).toEqual(['proposer', 'critic', 'reviser', 'engineer', 'validator', 'reviewer', 'synthesizer']);
  });

  it('terminal statuses are statuses, and queued/running are not terminal', () => {
    for (const s of TERMINAL_RUN_STATUSES) expect(RunStatus.options).toContain(s);
    expect(TERMINAL_RUN_STATUSES).not.toContain('queued');
    expect(TERMINAL_RUN_STATUSES).not.toContain('running');
  });
});
