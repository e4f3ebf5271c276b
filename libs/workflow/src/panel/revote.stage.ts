import type { JudgeRole, Revote } from '@roundtable/contracts';
import { closeWhenSettled } from '../engine/closing';
import { assessRevote, clampRevote, REVOTE_CAP } from '../verification/panel-quality';
import { currentScores, revotePack } from './panel-context-packs';
import { freshSpec, panelDefinition, queueOrHalt } from './panel-definition';
import { pendingOf, type PanelStep } from './panel-step';
import type { PanelFinishedCall, RevoteRecord } from './panel-types';
import { startModerate } from './moderate.stage';
import { enterPhase } from './phases';

/** REVOTE: the five judges re-score at once against the whole debate, each move capped at ±3. */

export function startRevote(step: PanelStep, why: string, refs: string[]): void {
  step.go('REVOTE', `${why}: each judge re-scores against the whole debate (±${REVOTE_CAP})`, refs);
  enterPhase(step, 'revote');
  const baseline = currentScores(step.state);
  step.state.revoteBaseline = baseline;
  step.emit('revote_started', { baseline });
  let n = step.peek('RV');
  const specs = (Object.keys(baseline) as JudgeRole[]).map((judge) =>
    freshSpec(step, judge, 'revote', `RV${n++}`, 'RV', revotePack(step.state, judge, baseline[judge]!)),
  );
  queueOrHalt(step, specs);
}

export function rescoreRecord(step: PanelStep, call: PanelFinishedCall, label: string, body: Revote, phase: RevoteRecord['phase'], previous: number): RevoteRecord {
  const score = clampRevote(previous, body.score);
  return {
    id: step.id(label),
    label,
    callId: call.id,
    judge: body.judge,
    phase,
    previous,
    requested: body.score,
    score,
    capped: score !== body.score,
    body,
  };
}

export function onRevote(step: PanelStep, call: PanelFinishedCall, label: string, body: Revote): void {
  const previous = step.state.revoteBaseline?.[body.judge];
  if (previous === undefined) return;
  const record = rescoreRecord(step, call, label, body, 'revote', previous);
  step.state.revotes.push(record);
  step.records.push({ kind: 'revote', record });
  const moved = record.score !== previous;
  step.emit('revote_judge_completed', {
    judge: record.judge,
    score: record.score,
    previous,
    delta: record.score - previous,
    change_reason: moved ? (body.change_reason ?? null) : null,
    ...(record.capped ? { capped: true } : {}),
  });
  if (step.state.haltReason !== null) return closeWhenSettled(step, panelDefinition);
  if (pendingOf(step, 'revote').length === 0) finishRevote(step);
}

export function finishRevote(step: PanelStep): void {
  const revotes = step.state.revotes.filter((r) => r.phase === 'revote');
  const a = assessRevote(step.state.revoteBaseline ?? {}, revotes.map((r) => r.body));
  if (a.herd) {
    step.warn({
      kind: 'herding',
      detail: `${a.herd.judges.length} judges moved by ${a.herd.delta > 0 ? '+' : ''}${a.herd.delta} together (${a.herd.judges.join(', ')}): persuasion or herding?`,
      judges: a.herd.judges,
    });
  }
  if (a.unexplained.length) step.warn({ kind: 'unexplained', detail: `score moved without a reason: ${a.unexplained.join(', ')}`, judges: a.unexplained });
  if (a.capped.length) {
    const detail = revotes
      .filter((r) => r.capped)
      .map((r) => `${r.judge} asked for ${r.requested}, capped at ${r.score} (±${REVOTE_CAP} from ${r.previous})`)
      .join('; ');
    step.warn({ kind: 'revote_capped', detail, judges: a.capped });
  }
  startModerate(step, `re-vote done: ${revotes.filter((r) => r.score !== r.previous).length} of ${revotes.length} judges moved`, revotes.map((r) => r.label));
}
