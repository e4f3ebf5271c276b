import { JUDGES, type DebateTurn, type JudgeRole } from '@roundtable/contracts';
import { debatePack } from './panel-context-packs';
import { closeWhenSettled } from '../engine/closing';
import { freshSpec, panelDefinition, queueOrHalt } from './panel-definition';
import type { PanelStep } from './panel-step';
import type { DebateTurnRecord, PanelFinishedCall } from './panel-types';
import { startModerate } from './moderate.stage';
import { enterPhase } from './phases';
import { startRevote } from './revote.stage';

/** DEBATE: vc → engineer → pm → customer → competitor, × max_debate_rounds; the code picks each speaker. */

export function startDebate(step: PanelStep, refs: string[]): void {
  const rounds = step.config.max_debate_rounds;
  if (rounds === 0) return afterDebate(step, 'max_debate_rounds is 0: no debate', refs);
  step.go('DEBATE', `panel ${step.state.quality?.status ?? 'assessed'}: ${rounds} debate round${rounds === 1 ? '' : 's'} in fixed order`, refs);
  enterPhase(step, 'debate');
  step.state.debateRound = 1;
  callSpeaker(step, JUDGES[0]);
}

export function callSpeaker(step: PanelStep, judge: JudgeRole): void {
  const label = `D${step.peek('D')}`;
  queueOrHalt(step, [freshSpec(step, judge, 'turn', label, 'D', debatePack(step.state, judge, label))]);
}

export function onTurn(step: PanelStep, call: PanelFinishedCall, label: string, body: DebateTurn): void {
  const record: DebateTurnRecord = { id: step.id(label), label, callId: call.id, speaker: body.speaker, round: body.round, body };
  step.state.turns.push(record);
  step.records.push({ kind: 'debate_turn', record });
  step.emit('debate_message_published', {
    speaker: body.speaker,
    round: body.round,
    message: body.message,
    label,
    ...(body.responds_to?.length ? { responds_to: body.responds_to } : {}),
  });
  // A turn that was in flight at a halt is kept; the close, not the next speaker, follows it.
  if (step.state.haltReason !== null) return closeWhenSettled(step, panelDefinition);
  nextSpeaker(step, body.speaker, [label]);
}

/** The code picks the speaker after `last`: the fixed order, then the next round, then the re-vote. */
export function nextSpeaker(step: PanelStep, last: JudgeRole, refs: string[]): void {
  const next = JUDGES.indexOf(last) + 1;
  if (next < JUDGES.length) return callSpeaker(step, JUDGES[next]);
  if (step.state.debateRound < step.config.max_debate_rounds) {
    step.state.debateRound += 1;
    return callSpeaker(step, JUDGES[0]);
  }
  afterDebate(step, `debate done: ${step.state.turns.length} messages in ${step.state.debateRound} round${step.state.debateRound === 1 ? '' : 's'}`, refs);
}

export function afterDebate(step: PanelStep, why: string, refs: string[]): void {
  if (step.config.revote) return startRevote(step, why, refs);
  startModerate(step, `${why}; re-vote off`, refs);
}
