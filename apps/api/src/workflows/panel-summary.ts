import type { RunEntity } from '@roundtable/persistence';
import type { PanelSummary } from '@roundtable/contracts';
import { canAppeal, currentScores, emptyUsage, panelStateOf, type PanelRunState } from '@roundtable/workflow';

/** A panel run's state as the API reads it (usage is not needed to describe it). */
export function panelStateOfRun(run: RunEntity): PanelRunState {
  return panelStateOf(run, emptyUsage());
}

/** The `panel` block of GET /v1/runs/:id for a panel run: where the judges stand and what may still happen. */
export function panelSummaryView(run: RunEntity): PanelSummary {
  const s = panelStateOfRun(run);
  const body = s.moderator?.body ?? null;
  const appeal = canAppeal(s);
  return {
    idea: s.config.idea.title,
    recommendation: body?.overall_recommendation ?? null,
    confidence: body?.confidence ?? null,
    partial: s.moderator?.partial ?? null,
    scores: currentScores(s),
    revote_baseline: s.revoteBaseline,
    debate_messages: s.turns.length,
    max_debate_rounds: s.config.max_debate_rounds,
    quality: s.quality?.status ?? null,
    low_confidence: s.lowConfidence,
    warnings: s.warnings.map((w) => w.kind),
    appeal: s.appeal ? { status: s.appeal.status, judges: s.appeal.judges } : null,
    can_appeal: appeal.ok ? true : appeal.reason,
  };
}
