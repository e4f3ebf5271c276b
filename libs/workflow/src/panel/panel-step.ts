import type { PanelRecommendation, PanelRole, PanelStage, PanelWarning } from '@roundtable/contracts';
import { EngineStep } from '../engine/step-accumulator';
import type { PanelAgentCallCommand, PanelCallKind, PanelRecord, PanelRunState, PanelStepContext, PendingCall } from './panel-types';

/** One panel step's output, accumulated over a private copy of the state; the input is never touched. */
export class PanelStep extends EngineStep<PanelRunState, PanelStage, PanelRecord, PanelAgentCallCommand, PanelRecommendation> {
  constructor(
    input: PanelRunState,
    readonly ctx: PanelStepContext,
  ) {
    super(
      {
        ...input,
        verdicts: [...input.verdicts],
        turns: [...input.turns],
        revotes: [...input.revotes],
        warnings: [...input.warnings],
        roastBatch: [...input.roastBatch],
        pending: { ...input.pending },
        phaseStartedAt: { ...input.phaseStartedAt },
        phaseSeconds: { ...input.phaseSeconds },
        calls: [...input.calls],
        counters: { ...input.counters },
      },
      ctx.prices,
      ctx.retryDelaysMs,
    );
  }

  warn(warning: PanelWarning): void {
    this.state.warnings.push(warning);
    this.records.push({ kind: 'panel_warning', warning });
    this.emit('panel_warning', warning);
  }

  protected outcome() {
    const body = this.state.moderator?.body ?? null;
    return { verdict: body?.overall_recommendation ?? null, confidence: body?.confidence ?? null };
  }
}

/** The roles with a call of this kind still in flight. */
export const pendingOf = (step: PanelStep, kind: PanelCallKind): PanelRole[] =>
  (Object.entries(step.state.pending) as [PanelRole, PendingCall][]).filter(([, p]) => p.kind === kind).map(([r]) => r);
