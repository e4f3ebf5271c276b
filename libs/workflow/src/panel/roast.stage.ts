import { JUDGES, type JudgeRole, type JudgeVerdict } from '@roundtable/contracts';
import { closeWhenSettled, failRun } from '../engine/closing';
import { queueCalls } from '../engine/ledger';
import { assessPanel } from '../verification/panel-quality';
import { currentScores, currentVerdicts, judgePack, JUDGE_NUDGES } from './panel-context-packs';
import { freshSpec, haltPanel, panelDefinition } from './panel-definition';
import { pendingOf, type PanelStep } from './panel-step';
import type { JudgeVerdictRecord, PanelFinishedCall } from './panel-types';
import { startDebate } from './debate.stage';
import { emitMetrics } from './moderate.stage';
import { closePhases, enterPhase } from './phases';

/** INIT → ROAST: five judges score the idea in parallel; weak judges are retried ≤ 2×; a collapsed panel fails. */

/** Retries of weak judges before a still-weak panel fails the run. */
export const MAX_PANEL_RETRIES = 2;

export function onStart(step: PanelStep): void {
  if (step.state.status !== 'queued' || step.state.stage !== 'INIT') return;
  step.state.status = 'running';
  step.emit('run_started', { workspace: null });
  step.go('ROAST', `the panel convenes on "${step.config.idea.title}": five judges score it in parallel`);
  enterPhase(step, 'roast');
  dispatchJudges(step, [...JUDGES], null);
}

/** The judges of one roast attempt, all at once; `why` is the weakness each retried judge is nudged about. */
export function dispatchJudges(step: PanelStep, judges: JudgeRole[], why: Partial<Record<JudgeRole, string[]>> | null): void {
  const retry = step.state.roastRetries;
  const current = new Map(currentVerdicts(step.state).map((v) => [v.judge, v]));
  let n = step.peek('V');
  const specs = judges.map((judge) => {
    const nudge = why ? `${JUDGE_NUDGES[judge]}\nYour last verdict was sent back: ${(why[judge] ?? []).join('; ')}` : null;
    return freshSpec(step, judge, 'verdict', `V${n++}`, 'V', judgePack(step.state, judge, nudge, why ? (current.get(judge) ?? null) : null));
  });
  const refusal = queueCalls(step, panelDefinition, specs);
  const queued = refusal ? judges.slice(0, refusal.index) : judges;
  step.state.roastBatch = queued;
  if (queued.length) step.emit('judges_dispatched', retry > 0 ? { judges: queued, round: retry } : { judges: queued });
  if (refusal) haltPanel(step, refusal.reason, { refs: [refusal.cap] });
}

export function onVerdict(step: PanelStep, call: PanelFinishedCall, label: string, body: JudgeVerdict): void {
  const record: JudgeVerdictRecord = { id: step.id(label), label, callId: call.id, judge: body.judge, attempt: step.state.roastRetries, body };
  step.state.verdicts.push(record);
  step.records.push({ kind: 'judge_verdict', record });
  const batch = step.state.roastBatch;
  const waiting = pendingOf(step, 'verdict');
  step.emit('judge_verdict_completed', {
    judge: body.judge,
    verdict: body,
    completed: batch.filter((j) => !waiting.includes(j)).length,
    total: Math.max(batch.length, 1),
  });
  if (step.state.haltReason !== null) return closeWhenSettled(step, panelDefinition);
  if (waiting.length === 0) onRoastComplete(step);
}

export function onRoastComplete(step: PanelStep): void {
  const verdicts = currentVerdicts(step.state);
  const quality = assessPanel(verdicts.map((v) => v.body));
  step.state.quality = quality;
  step.records.push({ kind: 'panel_quality', attempt: step.state.roastRetries, quality });
  step.emit('roast_panel_completed', { scores: currentScores(step.state), quality });
  const refs = verdicts.map((v) => v.label);

  switch (quality.status) {
    case 'collapsed':
      return fail(step, `panel collapsed: ${quality.reasons.filter((r) => r.startsWith('lens collapse')).join('; ')} (max Jaccard ${quality.figures.max_jaccard})`, refs);
    case 'weak': {
      if (step.state.roastRetries >= MAX_PANEL_RETRIES) {
        return fail(step, `panel still weak after ${MAX_PANEL_RETRIES} retries: ${quality.reasons.join('; ')}`, refs);
      }
      step.state.roastRetries += 1;
      const judges = quality.weak_judges;
      step.emit('panel_retry', { attempt: step.state.roastRetries, reasons: quality.reasons, judges });
      const why: Partial<Record<JudgeRole, string[]>> = {};
      for (const j of judges) why[j] = quality.reasons.filter((r) => r.startsWith(`${j}:`)).map((r) => r.slice(j.length + 1).trim());
      return dispatchJudges(step, judges, why);
    }
    case 'uniform':
      step.state.lowConfidence = true;
      step.warn({ kind: 'uniform', detail: `${quality.reasons.join('; ')}; the result is flagged low-confidence` });
      return startDebate(step, refs);
    case 'ok':
      return startDebate(step, refs);
  }
}

/** The run fails with the measured figures: nothing a moderator could fairly synthesize. */
export function fail(step: PanelStep, reason: string, refs: string[]): void {
  failRun(step, 'HALTED', reason, refs, () => {
    closePhases(step);
    emitMetrics(step);
  });
}
