import type { JudgeRole, PanelRole, PanelStage } from '@roundtable/contracts';
import { closeWhenSettled, halt, requestOrHalt, type HaltOptions } from '../engine/closing';
import type { CallSpec, WorkflowDefinition } from '../engine/definition';
import { answers } from '../engine/replies';
import { renderPanelMessages, templateFor, type PanelContextPack } from './panel-context-packs';
import { pendingOf, type PanelStep } from './panel-step';
import { SCHEMA_BY_KIND, type ModeratorRecord, type PanelCallKind, type PanelRunState } from './panel-types';
import { enterPhase } from './phases';
import { finish, moderatorSpec } from './moderate.stage';
import { finishRevote } from './revote.stage';
import { contextIssue, gistOf, onAppealFailed, onArtifact } from './panel-replies';

/**
 * The panel as a definition on the engine: five judges and a moderator, the moderator
 * closes, a reply's schema is its kind's, and calls run in parallel (one per role at a time,
 * each pending by call id). A failed re-vote keeps the judge's score; any other give-up halts.
 */

export type PanelCallSpec = CallSpec<PanelRole, PanelStage, PanelCallKind>;

export function freshSpec(
  step: PanelStep,
  role: PanelRole,
  kind: PanelCallKind,
  label: string,
  labelFamily: string,
  pack: PanelContextPack,
  stage: PanelStage = step.state.stage,
): PanelCallSpec {
  const agent = panelDefinition.agentOf(step.config, role);
  return {
    role,
    kind,
    stage,
    label,
    labelFamily,
    messages: renderPanelMessages(step.ctx.templates, role, templateFor(kind, role), pack.values),
    contextRefs: pack.contextRefs,
    attempt: 1,
    repairOf: null,
    provider: agent.provider,
    model: agent.model,
    schemaName: SCHEMA_BY_KIND[kind],
  };
}

/**
 * The close without a model: a synthesis row with no body, written from the records alone, under
 * the engine's closing label (gap-free: the last moderator call's when nothing came of it).
 */
function factOnly(step: PanelStep, why: string): void {
  const label = step.closingLabel('M', step.state.moderator?.label);
  const record: ModeratorRecord = { id: step.id(label), label, callId: null, partial: true, body: null };
  step.state.moderator = record;
  step.records.push({ kind: 'moderator_synthesis', record });
  if (step.state.stage !== 'DONE') step.go('DONE', `fact-only close: ${why}`, [label]);
  finish(step, 'halted');
}

export const panelDefinition: WorkflowDefinition<PanelRunState, PanelRole, PanelStage, PanelCallKind, PanelStep> = {
  agentOf: (config, role) => (role === 'moderator' ? config.moderator : config.judges[role]),
  closing: { role: 'moderator', stage: 'MODERATE', noun: 'moderator', product: 'synthesis' },
  haltedStage: 'HALTED',
  replySchema: (_call, awaited) => SCHEMA_BY_KIND[awaited.kind],
  giveUpReason: (call, awaited, { error, code }, schema) => {
    const why = `${code ?? 'ERROR'}: ${error}`;
    if (call.role === 'moderator') return schema ? `FAILED_SCHEMA: moderator reply failed its schema twice: ${error}` : `moderator call failed (${why})`;
    // A missing judge or a missing turn is not a panel any more (seed 003: "a missing judge is a bug").
    return schema ? `FAILED_SCHEMA: ${call.role} ${awaited.kind} failed its schema twice: ${error}` : `${call.role} ${awaited.kind} call failed (${why})`;
  },
  giveUp: (step, call, awaited, why) => {
    if (awaited.kind !== 'revote') return false;
    // A re-vote is a refinement: the judge keeps its baseline score and the run says so.
    const judge = call.role as JudgeRole;
    step.warn({ kind: 'revote_failed', detail: `${judge}'s re-vote failed (${why}); its score stays at ${step.state.revoteBaseline?.[judge]}`, judges: [judge] });
    if (pendingOf(step, 'revote').length === 0) finishRevote(step);
    return true;
  },
  afterHaltFailure: (step, call, awaited, why) => {
    // After a halt only the moderator is called: a judge's bad reply is dropped, not repaired.
    const judge = call.role as JudgeRole;
    step.warn({ kind: awaited.kind === 'revote' ? 'revote_failed' : 'verdict_dropped', detail: `${judge}'s ${awaited.kind} after the halt was unusable (${why})`, judges: [judge] });
    closeWhenSettled(step, panelDefinition);
  },
  awaited: (step, call) => {
    const pending = step.state.pending[call.role];
    // Stale, duplicate, or a reply this run stopped waiting for.
    if (!pending || !answers(pending.callId, call)) return null;
    return pending;
  },
  contextIssue: (step, call, awaited, parsed) => contextIssue(step, call.role, awaited.kind, parsed),
  gist: (_step, _call, awaited, parsed) => gistOf(awaited.kind, awaited.label, parsed),
  onArtifact: (step, call, awaited, parsed) => onArtifact(step, call, awaited, parsed),
  ownFailure: (step, call, awaited, failure) => onAppealFailed(step, call, awaited, failure),
  onQueued: (step, spec, command) => {
    step.state.pending[spec.role] = { label: spec.label, kind: spec.kind, callId: command.callId };
  },
  onLanded: (step, call, awaited) => {
    step.state.calls.push({
      callId: call.id,
      role: call.role,
      stage: call.stage,
      label: awaited.label,
      provider: call.provider,
      model: call.model,
      attempt: call.attempt,
      status: call.status,
      usage: call.usage ?? null,
    });
    delete step.state.pending[call.role];
  },
  inFlight: (step) => Object.keys(step.state.pending).length,
  closingSpec: (step) => moderatorSpec(step),
  onClosingStage: (step) => enterPhase(step, 'moderate'),
  factOnly,
};

/** Any stage → HALTED; the calls in flight land, then the moderator's one call (or a fact-only close). */
export function haltPanel(step: PanelStep, reason: string, opts: HaltOptions<PanelRole, PanelStage, PanelCallKind> = {}): void {
  halt(step, panelDefinition, reason, opts);
}

/** Queue calls; a refusal halts the run (the calls that fit are already in flight and will land). */
export function queueOrHalt(step: PanelStep, specs: PanelCallSpec[]): boolean {
  return requestOrHalt(step, panelDefinition, specs);
}
