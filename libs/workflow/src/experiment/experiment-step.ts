import type { ExperimentDecision, ExperimentStage } from '@roundtable/contracts';
import { EngineStep } from '../engine/step-accumulator';
import type { ExperimentCommand, ExperimentRecord, ExperimentRunState, ExperimentStepContext } from './experiment-types';

/** One experiment step's output, accumulated over a private copy of the state; the input is never touched. */
export class ExperimentStep extends EngineStep<ExperimentRunState, ExperimentStage, ExperimentRecord, ExperimentCommand, ExperimentDecision> {
  constructor(
    input: ExperimentRunState,
    readonly ctx: ExperimentStepContext,
  ) {
    super({ ...input, counters: { ...input.counters } }, ctx.prices, ctx.retryDelaysMs);
  }

  protected outcome() {
    return { verdict: this.state.outcome?.computed === undefined ? null : decisionOf(this.state), confidence: null };
  }
}

/** The decision that stands: the computed one, unless the critic's disagreement made it INCONCLUSIVE. */
export function decisionOf(state: ExperimentRunState): ExperimentDecision | null {
  const o = state.outcome;
  if (!o) return null;
  return o.review && !o.review.agrees ? 'INCONCLUSIVE' : o.computed;
}
