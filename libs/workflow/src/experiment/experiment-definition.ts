import type { ExperimentRole, ExperimentStage, Interpretation, InterpretationReview, Preregistration } from '@roundtable/contracts';
import { readingProblems } from '@roundtable/contracts';
import { closeWhenSettled, halt, requestOrHalt } from '../engine/closing';
import type { CallSpec, WorkflowDefinition } from '../engine/definition';
import { answers } from '../engine/replies';
import { onDraft } from './draft.stage';
import { domainOf, messagesFor, schemaOf } from './experiment-context-packs';
import type { ExperimentStep } from './experiment-step';
import type { ExperimentCallKind, ExperimentRunState } from './experiment-types';
import { closeWithoutModel, onInterpretation, onReview } from './interpret.stage';

/**
 * The experiment as a definition on the engine: a proposer (drafts only), an interpreter that
 * closes, and a critic; one call at a time. Every give-up halts; after a halt the interpreter
 * gets its one call when there are metrics to read and no reading yet, else the close is
 * fact-only (the decision is code's either way).
 */

export type ExperimentCallSpec = CallSpec<ExperimentRole, ExperimentStage, ExperimentCallKind>;

/** Label families: PR1 the drafted preregistration, IN1 the interpretation, CR1 the critic's review. */
const FAMILY: Record<ExperimentCallKind, string> = { draft: 'PR', interpret: 'IN', review: 'CR' };

export function callSpec(step: ExperimentStep, kind: ExperimentCallKind, stage: ExperimentStage = step.state.stage): ExperimentCallSpec {
  const { role, messages, refs } = messagesFor(step.ctx.templates, step.state, kind);
  const agent = experimentDefinition.agentOf(step.config, role);
  const family = FAMILY[kind];
  return {
    role,
    kind,
    stage,
    label: `${family}${step.peek(family)}`,
    labelFamily: family,
    messages,
    contextRefs: refs,
    attempt: 1,
    repairOf: null,
    provider: agent.provider,
    model: agent.model,
    schemaName: schemaOf(kind, domainOf(step.state)),
  };
}

function contextIssue(step: ExperimentStep, kind: ExperimentCallKind, parsed: unknown): string | null {
  if (kind === 'draft') {
    const draft = parsed as Preregistration;
    if (step.config.domain === 'trading' && draft.domain !== 'trading') return 'domain: this experiment is trading research; set domain to "trading"';
    return null;
  }
  if (kind === 'interpret') return readingProblems(step.state.preregistration!, parsed as Interpretation);
  return null;
}

function gistOf(kind: ExperimentCallKind, label: string, parsed: unknown): string {
  if (kind === 'draft') return `${label}: ${(parsed as Preregistration).title}`;
  if (kind === 'interpret') return `${label}: reads ${(parsed as Interpretation).decision}`;
  return `${label}: ${(parsed as InterpretationReview).agrees ? 'agrees with the reading' : 'disagrees with the reading'}`;
}

export const experimentDefinition: WorkflowDefinition<ExperimentRunState, ExperimentRole, ExperimentStage, ExperimentCallKind, ExperimentStep> = {
  // A file without a proposer is never drafted: its proposer is never asked.
  agentOf: (config, role) => (role === 'proposer' ? (config.proposer ?? config.interpreter) : config[role]),
  closing: { role: 'interpreter', stage: 'INTERPRET', noun: 'interpreter', product: 'interpretation' },
  haltedStage: 'HALTED',
  closingSpec: (step) => callSpec(step, 'interpret', 'INTERPRET'),
  onClosingStage: () => undefined,
  factOnly: (step, why) => closeWithoutModel(step, why),
  nothingToClose: (step) => {
    if (!step.state.result) return 'the method produced no metrics, so there is nothing to interpret';
    if (step.state.interpretation) return `${step.state.interpretation.label} read the criteria already; the critic's review is missing`;
    return null;
  },
  // The call's own schema name: the domain chose it when the call was made.
  replySchema: (call, awaited) => call.schemaName ?? schemaOf(awaited.kind, 'general'),
  contextIssue: (step, _call, awaited, parsed) => contextIssue(step, awaited.kind, parsed),
  gist: (_step, _call, awaited, parsed) => gistOf(awaited.kind, awaited.label, parsed),
  onArtifact: (step, call, awaited, parsed) => {
    if (awaited.kind === 'draft') return onDraft(step, call, awaited.label, parsed as Preregistration);
    if (awaited.kind === 'interpret') return onInterpretation(step, call, awaited.label, parsed as Interpretation);
    return onReview(step, call, awaited.label, parsed as InterpretationReview);
  },
  giveUp: () => false,
  giveUpReason: (call, awaited, { error, code }, schema) =>
    schema ? `FAILED_SCHEMA: the ${call.role}'s ${awaited.kind} failed its schema twice: ${error}` : `the ${call.role}'s ${awaited.kind} call failed (${code ?? 'ERROR'}: ${error})`,
  afterHaltFailure: (step) => closeWhenSettled(step, experimentDefinition),
  awaited: (step, call) => {
    const pending = step.state.pending;
    if (!pending || pending.role !== call.role || !answers(pending.callId, call)) return null;
    return pending;
  },
  onQueued: (step, spec, command) => {
    step.state.pending = { role: spec.role, label: spec.label, kind: spec.kind, callId: command.callId };
  },
  onLanded: (step) => {
    step.state.pending = null;
  },
  // The method's command counts: a halt waits for it as for a call.
  inFlight: (step) => (step.state.pending ? 1 : 0) + (step.state.methodOp ? 1 : 0),
};

export function haltExperiment(step: ExperimentStep, reason: string): void {
  halt(step, experimentDefinition, reason);
}

/** Queue a call; a refusal halts the run. */
export function askOrHalt(step: ExperimentStep, kind: ExperimentCallKind): boolean {
  return requestOrHalt(step, experimentDefinition, [callSpec(step, kind)]);
}
