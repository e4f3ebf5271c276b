import { TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { cancelRun, endStep } from '../engine/step-end';
import { onAppeal } from './appeal';
import { onReply } from '../engine/replies';
import { haltPanel, panelDefinition } from './panel-definition';
import { onPanelResume } from './resume';
import { PanelStep } from './panel-step';
import type { PanelEvent, PanelRunState, PanelStepContext, PanelStepResult } from './panel-types';
import { onStart } from './roast.stage';

export { canAppeal } from './appeal';
export { MAX_PANEL_RETRIES } from './roast.stage';

/**
 * The panel workflow (seed 003) as one pure step, a definition on the same engine as the
 * build (../engine: the call ledger, replies, repair, fallback, halting and the one closing
 * call). The code owns everything but judgment: who is asked, in what order, how often, and
 * what happens when a panel is weak, collapsed or herding.
 *
 * INIT → ROAST (five judges at once; weak judges retried ≤ 2×; collapsed → failed)
 *      → DEBATE (vc → engineer → pm → customer → competitor, × max_debate_rounds)
 *      → REVOTE (five at once, ±3 cap) → MODERATE → DONE.
 * A refused call or a failed one halts: the calls in flight land, then the moderator gets
 * exactly one call (or a fact-only close). A halted panel resumes where it stopped (./resume.ts).
 * An appeal on a done run re-scores chosen judges once.
 */
export function decidePanel(state: PanelRunState, event: PanelEvent, ctx: PanelStepContext): PanelStepResult {
  const step = new PanelStep(state, ctx);
  if (event.type === 'appeal') {
    onAppeal(step, event.evidence, event.judges, event.caps ?? {});
  } else if (event.type === 'resume') {
    onPanelResume(step, event.at, event.rerun, event.caps ?? {});
    return step.result();
  } else if (TERMINAL_RUN_STATUSES.includes(state.status)) {
    // A finished run is history, except for the re-scores of its one appeal.
    if (event.type === 'agent_call_finished' && state.pending[event.call.role]?.kind === 'appeal') onReply(step, panelDefinition, event.call);
  } else {
    switch (event.type) {
      case 'start':
        onStart(step);
        break;
      case 'agent_call_finished':
        onReply(step, panelDefinition, event.call);
        break;
      case 'halt':
        haltPanel(step, event.reason);
        break;
      case 'cancel':
        cancelRun(step, event.reason);
        return step.result();
    }
  }
  return endStep(step);
}

export const panelWorkflow = { decide: decidePanel } as const;
