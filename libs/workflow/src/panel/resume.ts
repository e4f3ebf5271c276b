import { JUDGES, type JudgeRole, type PanelStage, type RunStatus } from '@roundtable/contracts';
import { reopenRun } from '../engine/resume';
import { nextSpeaker, startDebate } from './debate.stage';
import { startModerate } from './moderate.stage';
import { enterPhase } from './phases';
import type { PanelStep } from './panel-step';
import { finishRevote } from './revote.stage';
import { dispatchJudges, onRoastComplete } from './roast.stage';
import { revotePack } from './panel-context-packs';
import { freshSpec, queueOrHalt } from './panel-definition';

/**
 * A halted panel resumes where it stopped (the stage its halting decision left), with the caps
 * raised: every recorded verdict, turn and re-vote is kept and none is asked again; only what
 * is missing is called, and the moderator then writes the whole synthesis (the partial one of
 * the halt stays in the records). A failed panel (collapsed, still weak) is not resumable: its
 * judges would say the same again; a new run is the way.
 */
export const PANEL_RESUMABLE: readonly RunStatus[] = ['halted'];

export function onPanelResume(step: PanelStep, at: PanelStage, rerun: boolean, caps: Partial<Record<string, number>>): void {
  if (!reopenRun(step, PANEL_RESUMABLE, at, rerun, caps)) return;
  switch (at) {
    case 'INIT':
    case 'ROAST':
      return resumeRoast(step);
    case 'DEBATE':
      return resumeDebate(step);
    case 'REVOTE':
      return resumeRevote(step);
    default:
      // MODERATE, or a stage with nothing left to redo: the moderator writes the synthesis.
      return startModerate(step, `resumed at ${at}: the moderator writes the synthesis`, []);
  }
}

/** The judges of the current roast attempt that have no verdict yet are asked; with all five in, the panel is assessed. */
function resumeRoast(step: PanelStep): void {
  enterPhase(step, 'roast');
  const attempt = step.state.roastRetries;
  const have = new Set(step.state.verdicts.filter((v) => v.attempt === attempt).map((v) => v.judge));
  // A retry asked the weak judges again (without their nudge now: the halt came between).
  const batch = attempt === 0 ? [...JUDGES] : (step.state.quality?.weak_judges ?? [...JUDGES]);
  const missing = batch.filter((j) => !have.has(j));
  if (missing.length === 0) return onRoastComplete(step);
  dispatchJudges(step, missing, null);
}

/** The speaker after the last recorded turn (the first of round 1 when none spoke). */
function resumeDebate(step: PanelStep): void {
  const last = step.state.turns.at(-1);
  if (!last) return startDebate(step, []);
  enterPhase(step, 'debate');
  step.state.debateRound = last.round;
  nextSpeaker(step, last.speaker, [last.label]);
}

/** The judges with no re-vote recorded against the baseline are asked; with all in, the re-vote is assessed. */
function resumeRevote(step: PanelStep): void {
  const baseline = step.state.revoteBaseline;
  if (!baseline) return startModerate(step, 'resumed at REVOTE with no baseline: the moderator writes the synthesis', []);
  enterPhase(step, 'revote');
  const have = new Set(step.state.revotes.filter((r) => r.phase === 'revote').map((r) => r.judge));
  const missing = (Object.keys(baseline) as JudgeRole[]).filter((j) => !have.has(j));
  if (missing.length === 0) return finishRevote(step);
  let n = step.peek('RV');
  queueOrHalt(
    step,
    missing.map((judge) => freshSpec(step, judge, 'revote', `RV${n++}`, 'RV', revotePack(step.state, judge, baseline[judge]!))),
  );
}
