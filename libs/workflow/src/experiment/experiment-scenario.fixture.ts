import {
  ExperimentProjectConfig,
  Preregistration,
  TRADING_CHECKLIST,
  type ExperimentProjectConfigInput,
  type ExperimentResult,
  type ExperimentRunConfig,
  type Interpretation,
  type InterpretationReview,
  type PreregistrationInput,
} from '@roundtable/contracts';
import { replayProviders, templatesFromPlaceholders, WorkflowDriver } from '../engine/workflow-driver.fixture';
import type { PriceLookup } from '../engine/call-types';
import { EXPERIMENT_PLACEHOLDERS } from './experiment-context-packs';
import type {
  ExperimentAgentCallCommand,
  ExperimentDecisionRow,
  ExperimentEvent,
  ExperimentFinishedCall,
  ExperimentPromptTemplates,
  ExperimentRecord,
  ExperimentRunState,
  ExperimentStepResult,
  MethodRunCommand,
  ParentAnswerCommand,
} from './experiment-types';
import { decideExperimentRun } from './experiment.workflow';
import { initialExperimentState } from './initial-experiment-state';

/** Test-only helpers for the experiment, the twin of panel-scenario.fixture.ts. */

export const TEST_EXPERIMENT_TEMPLATES: ExperimentPromptTemplates = {
  ...templatesFromPlaceholders<ExperimentPromptTemplates>(EXPERIMENT_PLACEHOLDERS),
  trading_rules: '## Trading research rules',
};

const agent = (provider: string, model: string) => ({ provider, model, timeout_s: 60, max_tokens: 2000, temperature: 0.2 });

export const TEST_PREREG: PreregistrationInput = {
  title: 'Crossover on a random walk',
  hypothesis: 'the crossover keeps a positive Sharpe out of sample',
  expected_result: 'sharpe_oos below 0',
  method: { description: 'backtest.py', command: 'python3 backtest.py prices.csv', metrics: ['sharpe_oos', 'max_drawdown', 'n_trades'], timeout_s: 120 },
  success_criteria: [{ expr: 'sharpe_oos >= 0.5' }, { expr: 'n_trades >= 5' }],
  failure_criteria: [{ expr: 'sharpe_oos < 0' }, { expr: 'max_drawdown < -0.3' }],
  data: 'synthetic prices',
  assumptions: [],
  domain: 'general',
};

export function testExperimentConfig(overrides: Partial<ExperimentProjectConfigInput> = {}): ExperimentRunConfig {
  const file = ExperimentProjectConfig.parse({
    workflow: 'experiment',
    project: 'backtest',
    repo: '/repo',
    preregistration: TEST_PREREG,
    interpreter: agent('anthropic', 'claude-sonnet-4-5'),
    critic: agent('openai', 'gpt-5'),
    providers: replayProviders('anthropic', 'openai'),
    ...overrides,
  });
  return { ...file, experiment_id: 'exp_1' };
}

export const preregOf = (input: PreregistrationInput = TEST_PREREG) => Preregistration.parse(input);

export function resultWith(metrics: Record<string, number>): ExperimentResult {
  return { prereg_hash: 'a'.repeat(64), commit: 'abc1234', metrics, exit_code: 0, duration_s: 1.5, output_artifact_id: 'run-1-M1-out', output_tail: JSON.stringify(metrics), run_id: 'run-1' };
}

/** A reading of every criterion of TEST_PREREG by the metrics, deciding `decision`. */
export function readingOf(metrics: Record<string, number>, decision: Interpretation['decision'], holds?: Record<string, boolean>): Interpretation {
  const by: Record<string, boolean> = {
    S1: metrics.sharpe_oos >= 0.5,
    S2: metrics.n_trades >= 5,
    F1: metrics.sharpe_oos < 0,
    F2: metrics.max_drawdown < -0.3,
    ...holds,
  };
  return {
    readings: Object.entries(by).map(([criterion_id, h]) => ({ criterion_id, holds: h, evidence: `metrics: ${JSON.stringify(metrics)}` })),
    decision,
    summary: `reads ${decision}`,
    caveats: [],
  };
}

export const agreeing: InterpretationReview = { agrees: true, disagreements: [], summary: 'the readings follow the metrics' };
export const disagreeing: InterpretationReview = { agrees: false, disagreements: ['S2: 11 trades are too few to trust'], summary: 'the sample is too small' };

/** The fifteen-item checklist, every item checked (n_trials on the multiple-testing item). */
export function tradingCritique(): Record<string, unknown> {
  return Object.fromEntries(
    TRADING_CHECKLIST.map(({ key }) => [key, { status: 'checked', evidence: `${key}: looked at it`, ...(key === 'multiple_testing_deflated_sharpe' ? { n_trials: 9 } : {}) }]),
  );
}

export class ExperimentDriver extends WorkflowDriver<ExperimentRunState, ExperimentEvent, ExperimentStepResult, ExperimentDecisionRow, ExperimentRecord> {
  inFlight: ExperimentAgentCallCommand[] = [];
  methodRuns: MethodRunCommand[] = [];
  answers: ParentAnswerCommand[] = [];

  constructor(config: ExperimentRunConfig = testExperimentConfig()) {
    super(
      initialExperimentState('run-1', config),
      (state, event, prices: PriceLookup | undefined) =>
        decideExperimentRun(state, event, { templates: TEST_EXPERIMENT_TEMPLATES, prices, methodTimeoutS: { default: 600, max: 3600 } }),
      'decideExperimentRun',
    );
  }

  step(event: ExperimentEvent): ExperimentStepResult {
    const result = this.run(event);
    for (const c of result.commands) {
      if (c.kind === 'experiment.run') this.methodRuns.push(c);
      else if (c.kind === 'run.answer') this.answers.push(c);
      else {
        this.reserve(c, 1);
        this.inFlight.push(c);
      }
    }
    return result;
  }

  /** The one call in flight of `role`, answered with `parsed` (valid unless patched). */
  reply(role: ExperimentAgentCallCommand['role'], parsed: unknown, patch: Partial<ExperimentFinishedCall> = {}): ExperimentStepResult {
    const i = this.inFlight.findIndex((c) => c.role === role);
    if (i < 0) throw new Error(`no ${role} call in flight (in flight: ${this.inFlight.map((c) => c.role).join(', ') || 'none'})`);
    const [call] = this.inFlight.splice(i, 1);
    this.settleUsage(call, { calls: 1, tokens: 100, costUsd: 0 });
    return this.step({ type: 'agent_call_finished', call: this.finishedOf(call, { parsed, ...patch }) });
  }

  /** The last method run reported with `metrics`, or failed with `error`. */
  method(outcome: { metrics: Record<string, number> } | { error: string }): ExperimentStepResult {
    const op = this.methodRuns.at(-1)!;
    return this.step({ type: 'method_ran', opId: op.opId, outcome: 'error' in outcome ? { ok: false, error: outcome.error } : { ok: true, result: resultWith(outcome.metrics) } });
  }
}
