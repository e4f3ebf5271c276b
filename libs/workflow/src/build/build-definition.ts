import type { BuildRole, RunStatus, Stage } from '@roundtable/contracts';
import type { WorkflowDefinition } from '../engine/definition';
import { answers } from '../engine/replies';
import { halt, type HaltOptions } from '../engine/closing';
import type { BuildRunState, SynthesisRecord } from './build-types';
import { agentFor, callSynthesizer, synthesizerSpec } from './build-calls';
import { secondReviewLabel, secondReviewPending, validatorReviewOfLatest } from './second-review';
import { gistOf, onArtifact } from './build-replies';
import { SCHEMA_BY_ROLE } from './context-packs';
import type { Step } from './build-step';
import { isSolo, SOLO_NO_SYNTHESIZER } from './solo';

/**
 * The build as a definition on the engine: its roles are the project's agents, the
 * synthesizer closes, a reply's schema is the one its call was sent with, and giving up on a
 * call halts the run. One call is in flight at a time, so the call awaited is the last one queued.
 */

/** Which role's reply each stage is waiting for; a reply from any other role is stale. */
export const ROLE_BY_STAGE: Partial<Record<Stage, BuildRole>> = {
  PROPOSE: 'proposer',
  CRITIQUE: 'critic',
  REVISE: 'reviser',
  IMPLEMENT: 'engineer',
  FIX: 'engineer',
  REVIEW: 'validator',
  SYNTHESIZE: 'synthesizer',
};

/**
 * The role whose reply the run waits for now: the stage's, except in REVIEW once the validator
 * has answered and a reviewer is named, when the second review is what is awaited.
 */
export function awaitedRole(state: BuildRunState): BuildRole | undefined {
  return secondReviewPending(state) ? 'reviewer' : ROLE_BY_STAGE[state.stage];
}

/** The label the current stage's pending call was queued under (used only if a reply lost it). */
export function expectedLabel(step: Step, role: BuildRole): string {
  const c = step.state.counters;
  switch (role) {
    case 'proposer':
    case 'reviser':
      return `P${c.P ?? 1}`;
    case 'critic':
      return `C${c.C ?? 1}`;
    case 'engineer':
      return step.state.fixRound > 0 ? `I${c.I ?? 1}f${step.state.fixRound}` : `I${c.I ?? 1}`;
    case 'validator':
      return `R${c.R ?? 1}`;
    case 'reviewer':
      return secondReviewLabel(validatorReviewOfLatest(step.state)?.label ?? `R${c.R ?? 1}`);
    case 'synthesizer':
      return `S${c.S ?? 1}`;
  }
}

export function alreadyRecorded(state: BuildRunState, role: BuildRole, label: string): boolean {
  switch (role) {
    case 'proposer':
    case 'reviser':
      return state.proposals.some((p) => p.label === label);
    case 'critic':
    case 'validator':
    case 'reviewer':
      return state.critiques.some((c) => c.label === label);
    case 'engineer':
      return state.implementations.some((i) => i.label === label);
    case 'synthesizer':
      // A resumed run may already hold the partial synthesis written at its halt.
      return state.synthesis?.label === label;
  }
}

/** The report without a model: a synthesis row with no body, written from the records alone. */
export function factOnly(step: Step, why: string, opts: { status?: RunStatus; stage?: Stage } = {}): void {
  const label = step.closingLabel('S', step.state.synthesis?.label);
  const record: SynthesisRecord = { id: step.id(label), label, callId: null, partial: true, body: null };
  step.state.synthesis = record;
  step.records.push({ kind: 'synthesis', record });
  step.emit('synthesis_recorded', { label, verdict: null, partial: true });
  const to = opts.stage ?? 'DONE';
  if (step.state.stage !== to) step.go(to, `fact-only report: ${why}`, [label]);
  const status = opts.status ?? 'halted';
  step.state.status = status;
  step.emit('run_completed', { status, verdict: null, confidence: null });
}

export const buildDefinition: WorkflowDefinition<BuildRunState, BuildRole, Stage, BuildRole, Step> = {
  agentOf: (config, role) => agentFor(config, role),
  closing: { role: 'synthesizer', stage: 'SYNTHESIZE', noun: 'synthesizer', product: 'report' },
  haltedStage: 'HALTED',
  replySchema: (call) => call.schemaName ?? SCHEMA_BY_ROLE[call.role],
  giveUpReason: (call, _awaited, { error, code }, schema) =>
    schema ? `FAILED_SCHEMA: ${call.role} reply failed its schema twice: ${error}` : `${call.role} call failed (${code ?? 'ERROR'}): ${error}`,
  // Every failed build call the engine could not repair or fall back from halts the run, but the
  // second review: it is an opinion the synthesizer may weigh, so the run goes on without it.
  giveUp: (step, call, _awaited, why) => {
    if (call.role !== 'reviewer') return false;
    step.go('SYNTHESIZE', `the reviewer's second review failed (${why}); the synthesizer goes on without it`, [call.id]);
    callSynthesizer(step);
    return true;
  },
  // Only the synthesizer is awaited after a halt: another role's reply is stale before it gets here.
  afterHaltFailure: () => undefined,
  awaited: (step, call) => {
    if (awaitedRole(step.state) !== call.role) return null;
    // One call at a time: the one awaited is the last one queued (a provider-worker retry takes the next number too).
    if (!answers(`${step.runId}-c${step.state.counters.call ?? 0}`, call)) return null;
    const label = call.label ?? expectedLabel(step, call.role);
    // A duplicate delivery: its artifact is recorded, or it was a request for files already taken.
    if (alreadyRecorded(step.state, call.role, label) || (step.state.fileReads ?? []).some((r) => r.callId === call.id)) return null;
    if ((step.state.toolTurns ?? []).some((t) => t.callId === call.id)) return null;
    return { callId: call.id, label, kind: call.role };
  },
  gist: (_step, call, awaited, parsed) => gistOf(call, awaited.label, parsed),
  onArtifact: (step, call, awaited, parsed) => onArtifact(step, call, awaited.label, parsed),
  onQueued: () => undefined,
  onLanded: () => undefined,
  // One call at a time, and a halt never finds a call of the build that will still land: a refusal or a
  // give-up halts in the step that handles the one call's reply (or an operation's report), and the
  // reconciler's halt comes only when no job of the run will report. So the close need not wait (the
  // panel's does, for its parallel judges); a reply that lands anyway is not the one awaited, and
  // changes nothing (closing.spec.ts, issue 22).
  inFlight: () => 0,
  closingSpec: (step) => synthesizerSpec(step),
  // A solo run has no synthesizer (solo.ts): a halt closes on the facts, never with a model's call.
  nothingToClose: (step) => (isSolo(step.state) ? SOLO_NO_SYNTHESIZER : null),
  onClosingStage: () => undefined,
  factOnly: (step, why) => factOnly(step, why),
};

/** Any stage → HALTED → SYNTHESIZE(partial) → DONE; the synthesizer gets exactly one call. */
export function haltBuild(step: Step, reason: string, opts: HaltOptions<BuildRole, Stage, BuildRole> = {}): void {
  halt(step, buildDefinition, reason, opts);
}
