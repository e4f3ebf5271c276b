import { JUDGES, type JudgeRole, type Revote } from '@roundtable/contracts';
import { queueCalls } from '../engine/ledger';
import { appealPack, currentScores } from './panel-context-packs';
import { freshSpec, panelDefinition } from './panel-definition';
import { pendingOf, type PanelStep } from './panel-step';
import type { PanelFinishedCall, PanelRunState } from './panel-types';
import { rescoreRecord } from './revote.stage';

/**
 * The appeal: a done run's one chance to re-score chosen judges with new evidence. It is
 * outside the run proper: all of its calls fit the budget or none is asked, and a failure
 * costs only that re-score.
 */

/** May this run take an appeal now? (The API answers 409 with the reason when not.) */
export function canAppeal(state: PanelRunState): { ok: true } | { ok: false; reason: string } {
  if (state.appeal) return { ok: false, reason: 'this run has had its one appeal' };
  if (state.status !== 'done') return { ok: false, reason: `only a finished panel can be appealed (status is ${state.status})` };
  if (!state.moderator?.body) return { ok: false, reason: 'the panel has no synthesis to appeal' };
  return { ok: true };
}

export function onAppeal(step: PanelStep, evidence: readonly string[], judges: readonly JudgeRole[], caps: Partial<Record<string, number>>): void {
  if (!canAppeal(step.state).ok) return;
  const items = evidence.map((e) => e.trim()).filter(Boolean);
  const scores = currentScores(step.state);
  const chosen = JUDGES.filter((j) => judges.includes(j) && scores[j] !== undefined);
  if (items.length === 0 || chosen.length === 0) return;
  // Raised caps apply from this appeal on (they stay raised even if the budget still refuses it).
  const raised = Object.fromEntries(Object.entries(caps).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
  if (Object.keys(raised).length) step.state.config = { ...step.config, budget: { ...step.config.budget, ...raised } };

  const previous: Partial<Record<JudgeRole, number>> = {};
  for (const j of chosen) previous[j] = scores[j];
  // The appeal's packs read the previous scores, so the state carries the appeal before the calls are built.
  step.state.appeal = { evidence: items, judges: chosen, status: 'running', previous };
  let n = step.peek('AP');
  const specs = chosen.map((judge) => freshSpec(step, judge, 'appeal', `AP${n++}`, 'AP', appealPack(step.state, judge, scores[judge]!, items), 'APPEAL'));
  const refusal = queueCalls(step, panelDefinition, specs, { allOrNothing: true });
  if (refusal) {
    // Nothing was asked, so the run still has its one appeal.
    step.state.appeal = null;
    step.warn({
      kind: 'appeal_refused',
      detail: `the appeal does not fit the budget: ${refusal.reason}; the run still has its appeal: ask again with caps raised (e.g. "caps": { "max_calls": ${step.config.budget.max_calls + chosen.length} })`,
      judges: chosen,
    });
    return;
  }
  step.emit('appeal_started', { judges: chosen, scores: previous, ...(Object.keys(raised).length ? { caps: raised } : {}) });
}

export function onAppealRescore(step: PanelStep, call: PanelFinishedCall, label: string, body: Revote): void {
  const previous = step.state.appeal?.previous[body.judge];
  if (previous === undefined) return;
  const record = rescoreRecord(step, call, label, body, 'appeal', previous);
  step.state.revotes.push(record);
  step.records.push({ kind: 'revote', record });
  settleAppeal(step);
}

export function settleAppeal(step: PanelStep): void {
  const appeal = step.state.appeal;
  if (!appeal || appeal.status !== 'running' || pendingOf(step, 'appeal').length > 0) return;
  step.state.appeal = { ...appeal, status: 'completed' };
  const rescored = step.state.revotes.filter((r) => r.phase === 'appeal');
  const scores: Partial<Record<JudgeRole, number>> = {};
  const reasons: Partial<Record<JudgeRole, string>> = {};
  for (const r of rescored) {
    scores[r.judge] = r.score;
    if (r.score !== r.previous && r.body.change_reason) reasons[r.judge] = r.body.change_reason;
  }
  step.emit('appeal_completed', { judges: appeal.judges, scores, previous: appeal.previous, change_reasons: reasons });
}
