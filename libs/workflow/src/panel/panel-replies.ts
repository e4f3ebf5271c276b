import type { DebateTurn, JudgeRole, JudgeVerdict, ModeratorSynthesis, PanelRole, Revote } from '@roundtable/contracts';
import { queueCalls } from '../engine/ledger';
import { repairSpec, type ReplyFailure } from '../engine/replies';
import { onAppealRescore, settleAppeal } from './appeal';
import { onTurn } from './debate.stage';
import { onModerator } from './moderate.stage';
import { panelDefinition } from './panel-definition';
import type { PanelStep } from './panel-step';
import type { PanelCallKind, PanelFinishedCall, PendingCall } from './panel-types';
import { appealEvidenceIds, ideaEvidenceIds } from './panel-context-packs';
import { onRevote } from './revote.stage';
import { onVerdict } from './roast.stage';

/** What a panel reply must say beyond its schema, what it becomes by kind, and the appeal's own failure rule. */

function previousScoreFor(step: PanelStep, kind: PanelCallKind, judge: JudgeRole): number | undefined {
  if (kind === 'appeal') return step.state.appeal?.previous[judge];
  return step.state.revoteBaseline?.[judge];
}

/** What the schema alone cannot know: who is speaking, which round, and whether a score moved. */
/** A citation of an evidence id the prompt did not show is a validation failure (one repair): a judge may not invent a source. */
function unknownCites(cites: readonly string[] | undefined, shown: readonly string[]): string | null {
  const unknown = (cites ?? []).filter((id) => !shown.includes(id));
  if (!unknown.length) return null;
  return `cites: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not an evidence id' : 'are not evidence ids'} of this prompt; cite only ${shown.length ? shown.join(', ') : 'nothing (it shows no evidence)'}`;
}

export function contextIssue(step: PanelStep, role: PanelRole, kind: PanelCallKind, parsed: unknown): string | null {
  switch (kind) {
    case 'verdict': {
      const v = parsed as JudgeVerdict;
      if (v.judge !== role) return `judge: this verdict is the ${role}'s, so judge must be "${role}" (got "${v.judge}")`;
      return unknownCites(v.cites, ideaEvidenceIds(step.state.config.idea));
    }
    case 'turn': {
      const t = parsed as DebateTurn;
      if (t.speaker !== role) return `speaker: this turn is the ${role}'s, so speaker must be "${role}" (got "${t.speaker}")`;
      if (t.round !== step.state.debateRound) return `round: this is round ${step.state.debateRound} (got ${t.round})`;
      return null;
    }
    case 'revote':
    case 'appeal': {
      const r = parsed as Revote;
      if (r.judge !== role) return `judge: this re-vote is the ${role}'s, so judge must be "${role}" (got "${r.judge}")`;
      const shown = [...ideaEvidenceIds(step.state.config.idea), ...(kind === 'appeal' ? appealEvidenceIds(step.state.appeal?.evidence ?? []) : [])];
      const cites = unknownCites(r.cites, shown);
      if (cites) return cites;
      const previous = previousScoreFor(step, kind, role as JudgeRole);
      if (previous === undefined) return null;
      if (r.score !== previous && !(r.changed && r.change_reason?.trim())) {
        return `change_reason: your score moved from ${previous} to ${r.score}, so changed must be true and change_reason must say what in the debate or evidence moved it`;
      }
      if (r.score === previous && r.changed) return `changed: your score stays at ${previous}, so changed must be false`;
      return null;
    }
    case 'moderator':
      return null;
  }
}

export function gistOf(kind: PanelCallKind, label: string, parsed: unknown): string {
  switch (kind) {
    case 'verdict': {
      const v = parsed as JudgeVerdict;
      return `${label} ${v.judge} ${v.score}/10 ${v.stance}`;
    }
    case 'turn':
      return `${label}: ${(parsed as DebateTurn).message.slice(0, 120)}`;
    case 'revote':
    case 'appeal': {
      const r = parsed as Revote;
      return `${label} ${r.judge} ${r.score}/10${r.changed ? ' (changed)' : ''}`;
    }
    case 'moderator':
      return `${label} ${(parsed as ModeratorSynthesis).overall_recommendation}`;
  }
}

type OnArtifact = (step: PanelStep, call: PanelFinishedCall, label: string, parsed: never) => void;

/** What a valid reply becomes, by the kind of call it answers. */
const ARTIFACT_BY_KIND: Record<PanelCallKind, OnArtifact> = { verdict: onVerdict, turn: onTurn, revote: onRevote, appeal: onAppealRescore, moderator: onModerator };

export function onArtifact(step: PanelStep, call: PanelFinishedCall, awaited: PendingCall, parsed: unknown): void {
  ARTIFACT_BY_KIND[awaited.kind](step, call, awaited.label, parsed as never);
}

/** An appeal is outside the run proper: a repair only within the budget, and a failure costs only that re-score. */
export function onAppealFailed(step: PanelStep, call: PanelFinishedCall, awaited: PendingCall, { error, code }: ReplyFailure): boolean {
  if (awaited.kind !== 'appeal') return false;
  if (code === 'SCHEMA_INVALID' && call.attempt === 1) {
    const refusal = queueCalls(step, panelDefinition, [repairSpec(call, awaited, panelDefinition.replySchema(call, awaited), error)]);
    if (!refusal) return true;
  }
  step.warn({ kind: 'appeal_failed', detail: `${call.role}'s appeal re-score failed (${code ?? 'ERROR'}: ${error})`, judges: [call.role as JudgeRole] });
  settleAppeal(step);
  return true;
}
