import { agreeing, disagreeing, ExperimentDriver, readingOf, testExperimentConfig, TEST_PREREG, tradingCritique } from './experiment-scenario.fixture';

const KILLING = { sharpe_oos: -0.16, max_drawdown: -0.12, n_trades: 11 };
const PASSING = { sharpe_oos: 2.96, max_drawdown: -0.07, n_trades: 7 };

/** A preregistered experiment run to its reading: started, the method reported, the interpreter asked. */
function toReading(metrics: Record<string, number>, driver = new ExperimentDriver()): ExperimentDriver {
  driver.step({ type: 'start' });
  driver.method({ metrics });
  return driver;
}

describe('the experiment workflow: preregistered → run → interpret → review, decided by code', () => {
  it('runs the method at once, reads, reviews and ends KILL when a failure criterion holds', () => {
    const d = new ExperimentDriver();
    d.step({ type: 'start' });
    expect(d.state.stage).toBe('RUN');
    expect(d.methodRuns).toEqual([{ kind: 'experiment.run', opId: 'run-1-M1', experimentId: 'exp_1', command: TEST_PREREG.method.command, metrics: ['sharpe_oos', 'max_drawdown', 'n_trades'], timeoutS: 120 }]);
    d.method({ metrics: KILLING });
    expect(d.records).toContainEqual(expect.objectContaining({ kind: 'experiment_result', experimentId: 'exp_1' }));
    expect(d.inFlight.map((c) => [c.role, c.label, c.stage, c.schemaName])).toEqual([['interpreter', 'IN1', 'INTERPRET', 'Interpretation']]);
    d.reply('interpreter', readingOf(KILLING, 'KILL'));
    expect(d.inFlight.map((c) => [c.role, c.label, c.stage, c.schemaName])).toEqual([['critic', 'CR1', 'REVIEW', 'InterpretationReview']]);
    d.reply('critic', agreeing);
    expect(d.state).toMatchObject({ status: 'done', stage: 'DONE' });
    expect(d.last.verdict).toBe('KILL');
    const decided = d.records.find((r) => r.kind === 'experiment_decided');
    expect(decided).toMatchObject({ decision: 'KILL', interpretation: { computed: 'KILL', override_request: null, open_question: null } });
    expect(d.eventsOf('experiment_decided')).toEqual([{ decision: 'KILL', computed: 'KILL', override_request: null, review_agrees: true, open_question: null }]);
    expect(d.path).toEqual(['RUN', 'INTERPRET', 'REVIEW', 'DONE']);
  });

  it('ends PASS when every success criterion holds and no failure criterion does', () => {
    const d = toReading(PASSING);
    d.reply('interpreter', readingOf(PASSING, 'PASS'));
    d.reply('critic', agreeing);
    expect(d.last.verdict).toBe('PASS');
  });

  it('an interpreter that decides otherwise is an override request, never applied', () => {
    const d = toReading(KILLING);
    d.reply('interpreter', readingOf(KILLING, 'INCONCLUSIVE', { F1: false }));
    d.reply('critic', agreeing);
    const outcome = d.state.outcome!;
    expect(d.last.verdict).toBe('KILL');
    expect(outcome.override_request).toEqual({ decision: 'INCONCLUSIVE', reason: 'reads INCONCLUSIVE' });
    expect(outcome.notes).toContain('IN1 reads F1 as not holding; by the metrics it holds (code\'s reading stands)');
    expect(outcome.criteria.find((c) => c.id === 'F1')).toMatchObject({ holds: true, reading: { holds: false } });
  });

  it('a critic that disagrees makes it INCONCLUSIVE and puts an open question to a person', () => {
    const d = toReading(KILLING);
    d.reply('interpreter', readingOf(KILLING, 'KILL'));
    d.reply('critic', disagreeing);
    expect(d.last.verdict).toBe('INCONCLUSIVE');
    expect(d.state.outcome!.computed).toBe('KILL');
    expect(d.state.outcome!.open_question).toMatch(/^The critic \(CR1\) disagrees with IN1 .*S2: 11 trades are too few/);
    expect(d.records).toContainEqual({ kind: 'open_question', role: 'critic', question: d.state.outcome!.open_question });
    d.step({ type: 'answer', questionId: 'Q1', answer: 'rerun with more data', answeredBy: 'ada' });
    expect(d.state.openQuestions![0].answer).toEqual({ text: 'rerun with more data', by: 'ada' });
    expect(d.last.verdict).toBe('INCONCLUSIVE');
  });

  it('the critic is asked author-blind: its prompt holds the reading, not who wrote it', () => {
    const d = toReading(KILLING);
    d.reply('interpreter', readingOf(KILLING, 'KILL'));
    const prompt = d.inFlight[0].messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('reads KILL');
    expect(prompt).not.toMatch(/anthropic|claude|interpreter|IN1/);
  });

  it('a reading that skips a criterion gets the one repair call, naming what is missing', () => {
    const d = toReading(KILLING);
    const skipped = readingOf(KILLING, 'KILL');
    d.reply('interpreter', { ...skipped, readings: skipped.readings.slice(1) });
    expect(d.inFlight).toHaveLength(1);
    expect(d.inFlight[0]).toMatchObject({ role: 'interpreter', attempt: 2, label: 'IN1' });
    expect(d.inFlight[0].messages.at(-1)!.content).toContain('not read: S1');
  });

  it('a method with missing metrics fails the run and stores no result', () => {
    const d = new ExperimentDriver();
    d.step({ type: 'start' });
    d.method({ error: 'missing metrics: n_trades' });
    expect(d.state).toMatchObject({ status: 'failed', result: null });
    expect(d.records.filter((r) => r.kind === 'experiment_result')).toEqual([]);
    expect(d.eventsOf('run_failed')[0].reason).toBe('the method gave no result: missing metrics: n_trades');
  });

  it('a duplicate or stale method report changes nothing', () => {
    const d = toReading(KILLING);
    const before = d.results.length;
    const again = d.method({ metrics: PASSING });
    expect(d.results.length).toBe(before + 1);
    expect(again.records).toEqual([]);
    expect(d.state.result!.metrics).toEqual(KILLING);
  });

  it('a halt during the reading closes with the interpreter once; the decision is still code’s', () => {
    const d = toReading(KILLING);
    d.step({ type: 'halt', reason: 'max_seconds reached' });
    expect(d.inFlight).toHaveLength(1); // the interpreter's call lands first
    d.reply('interpreter', readingOf(KILLING, 'KILL'));
    expect(d.state).toMatchObject({ status: 'halted', stage: 'DONE' });
    expect(d.last.verdict).toBe('KILL');
    expect(d.state.outcome!.notes).toContain('not reviewed: the run halted (max_seconds reached)');
  });

  it('a halt before there are metrics closes fact-only, undecided', () => {
    const d = new ExperimentDriver();
    d.step({ type: 'start' });
    d.step({ type: 'halt', reason: 'quiet too long' });
    expect(d.state.status).toBe('running'); // the method is still in flight
    d.method({ metrics: KILLING });
    // the metrics landed after the halt: the interpreter's one call reads them
    expect(d.inFlight.map((c) => c.role)).toEqual(['interpreter']);
    const d2 = new ExperimentDriver();
    d2.step({ type: 'start' });
    d2.step({ type: 'halt', reason: 'quiet too long' });
    d2.method({ error: 'the command exited 2' });
    expect(d2.state).toMatchObject({ status: 'halted', outcome: null });
    expect(d2.inFlight).toEqual([]);
  });
});

describe('a drafted experiment waits at its gate', () => {
  const drafted = (commit: string | null = 'abc1234') =>
    testExperimentConfig({ preregistration: undefined, commit: commit ?? undefined, draft_from: 'C1 says NEEDS_EXPERIMENT: does the crossover survive costs?', proposer: { provider: 'anthropic', model: 'claude-sonnet-4-5' } });

  it('approved with no commit to pin it to (a build on a plain directory): the run fails, saying so, and nothing runs', () => {
    const d = new ExperimentDriver(drafted(null));
    d.step({ type: 'start' });
    d.reply('proposer', TEST_PREREG);
    d.step({ type: 'approval', gate: 'preregistration', decision: 'approve', note: null, approver: 'ada' });
    expect(d.state.status).toBe('failed');
    expect(d.eventsOf('run_failed')[0].reason).toMatch(/no commit to pin it to/);
    expect(d.methodRuns).toEqual([]);
    expect(d.records.map((r) => r.kind)).not.toContain('experiment_locked');
  });

  it('the proposer drafts, a person approves: locked, then run', () => {
    const d = new ExperimentDriver(drafted());
    d.step({ type: 'start' });
    expect(d.inFlight.map((c) => [c.role, c.label, c.stage, c.schemaName])).toEqual([['proposer', 'PR1', 'DRAFT', 'Preregistration']]);
    expect(d.inFlight[0].messages[1].content).toContain('does the crossover survive costs?');
    d.reply('proposer', TEST_PREREG);
    expect(d.state).toMatchObject({ status: 'awaiting_approval', stage: 'LOCK', gate: { name: 'preregistration' } });
    expect(d.methodRuns).toEqual([]);
    d.step({ type: 'approval', gate: 'preregistration', decision: 'approve', note: null, approver: 'ada' });
    expect(d.records).toContainEqual(expect.objectContaining({ kind: 'experiment_locked', experimentId: 'exp_1', approver: 'ada' }));
    expect(d.state.stage).toBe('RUN');
    expect(d.methodRuns).toHaveLength(1);
  });

  it('refused at the gate: nothing is locked or run, and the run ends undecided', () => {
    const d = new ExperimentDriver(drafted());
    d.step({ type: 'start' });
    d.reply('proposer', TEST_PREREG);
    d.step({ type: 'approval', gate: 'preregistration', decision: 'reject', note: 'wrong data', approver: 'ada' });
    expect(d.records.map((r) => r.kind)).toEqual(['experiment_rejected']);
    expect(d.state).toMatchObject({ status: 'done', stage: 'DONE', outcome: null });
    expect(d.methodRuns).toEqual([]);
  });
});

describe('a drafted experiment reports its decision to where it came from', () => {
  const from = (source: NonNullable<ReturnType<typeof testExperimentConfig>['source']>) => ({ ...testExperimentConfig(), source });

  it("a build's NEEDS_EXPERIMENT: the decision answers the build's open question", () => {
    const d = toReading(KILLING, new ExperimentDriver(from({ build_run_id: 'run_b', question_id: 'Q1' })));
    d.reply('interpreter', readingOf(KILLING, 'KILL'));
    d.reply('critic', agreeing);
    expect(d.answers).toEqual([{ kind: 'run.answer', runId: 'run_b', questionId: 'Q1', experimentId: 'exp_1', answer: expect.stringMatching(/^Experiment exp_1 "Crossover on a random walk" decided KILL by code .*S2 `n_trades >= 5`, F1 `sharpe_oos < 0`.*sharpe_oos=-0.16/) }]);
  });

  it("an idea's recommended experiment: the decision is logged to the idea's evidence ledger", () => {
    const d = toReading(PASSING, new ExperimentDriver(from({ idea_id: 'idea_1', panel_run_id: 'run_p' })));
    d.reply('interpreter', readingOf(PASSING, 'PASS'));
    d.reply('critic', agreeing);
    expect(d.records).toContainEqual({ kind: 'idea_evidence', experimentId: 'exp_1', ideaId: 'idea_1', claim: expect.stringContaining('decided PASS'), source: 'experiment exp_1 (run run-1)' });
    expect(d.answers).toEqual([]);
  });
});

describe('domain: trading', () => {
  const trading = () => testExperimentConfig({ preregistration: { ...TEST_PREREG, domain: 'trading' } });

  it('the reading carries the fifteen-item checklist; one missing item gets the one repair call', () => {
    const d = toReading(KILLING, new ExperimentDriver(trading()));
    expect(d.inFlight[0].schemaName).toBe('TradingInterpretation');
    expect(d.inFlight[0].messages[1].content).toContain('Trading research rules');
    const { look_ahead_bias: _skipped, ...fourteen } = tradingCritique();
    d.reply('interpreter', { ...readingOf(KILLING, 'KILL'), trading_critique: fourteen });
    expect(d.inFlight[0]).toMatchObject({ role: 'interpreter', attempt: 2 });
    expect(d.inFlight[0].messages.at(-1)!.content).toContain('look_ahead_bias');
    d.reply('interpreter', { ...readingOf(KILLING, 'KILL'), trading_critique: tradingCritique() });
    expect(d.inFlight.map((c) => c.schemaName)).toEqual(['TradingInterpretationReview']);
    d.reply('critic', { ...agreeing, trading_critique: tradingCritique() });
    expect(d.last.verdict).toBe('KILL');
    expect(d.state.outcome!.trading_critique).toMatchObject({ look_ahead_bias: { status: 'checked' } });
  });
});
