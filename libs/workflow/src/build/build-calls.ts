import type { AgentConfig, BuildRole, ProjectConfig, Stage } from '@roundtable/contracts';
import type { CallSpec } from '../engine/definition';
import { requestOrHalt } from '../engine/closing';
import type { CritiqueRecord, ImplementationRecord, ProposalRecord } from './build-types';
import {
  CONTEXT_PLACEHOLDERS,
  criticPack,
  engineerPack,
  proposerPack,
  renderMessages,
  replySchemaName,
  reviserPack,
  synthesizerPack,
  validatorPack,
  type ContextPack,
} from './context-packs';
import { buildDefinition } from './build-definition';
import { domainRules } from './pack-texts';
import { secondReviewLabel } from './second-review';
import type { Step } from './build-step';
import { callEngineerTurn, engineerUsesTools } from './tool-loop';

/** The build's calls: which role is asked, under which label, with which context pack. */

export type BuildCallSpec = CallSpec<BuildRole, Stage, BuildRole>;

/** The agent a role's calls go to; only an optional role (the reviewer) can be missing, and it is never asked then. */
export function agentFor(config: ProjectConfig, role: BuildRole): AgentConfig {
  const agent = config.agents[role];
  if (!agent) throw new Error(`the build asked the ${role}, but agents.${role} is not set`);
  return agent;
}

/** The domain's rules section (issue 24) for the roles whose templates have one; empty in a general build. */
function withDomainRules(step: Step, role: BuildRole, values: Record<string, string>): Record<string, string> {
  if (!CONTEXT_PLACEHOLDERS[role].includes('domain_rules')) return values;
  return { ...values, domain_rules: domainRules(step.state, step.ctx.templates, role) };
}

export function freshSpec(step: Step, role: BuildRole, label: string, labelFamily: string | null, pack: ContextPack): BuildCallSpec {
  const agent = agentFor(step.config, role);
  return {
    role,
    kind: role,
    stage: step.state.stage,
    label,
    labelFamily,
    messages: renderMessages(step.ctx.templates, role, withDomainRules(step, role, pack.values)),
    contextRefs: pack.contextRefs,
    attempt: 1,
    repairOf: null,
    provider: agent.provider,
    model: agent.model,
    schemaName: replySchemaName(step.state, role, label),
  };
}

/** Budget before every enqueue; a refused call turns the step into HALTED. */
export function requestCall(step: Step, spec: BuildCallSpec): void {
  requestOrHalt(step, buildDefinition, [spec]);
}

export function callProposer(step: Step): void {
  const label = `P${step.peek('P')}`;
  requestCall(step, freshSpec(step, 'proposer', label, 'P', proposerPack(step.state, label)));
}

export function callCritic(step: Step, proposal: ProposalRecord): void {
  const label = `C${step.peek('C')}`;
  requestCall(step, freshSpec(step, 'critic', label, 'C', criticPack(step.state, proposal, label)));
}

export function callReviser(step: Step, proposal: ProposalRecord, critique: CritiqueRecord): void {
  const label = `P${step.peek('P')}`;
  requestCall(step, freshSpec(step, 'reviser', label, 'P', reviserPack(step.state, proposal, critique, label)));
}

/** `proposal`: what the engineer implements; null in a solo run (solo.ts), which works from the objective and requirements. */
export function callEngineer(step: Step, proposal: ProposalRecord | null): void {
  const fix = step.state.fixRound > 0;
  // A fix round keeps the implementation's number: I1 → I1f1 → I1f2.
  const label = fix ? `I${step.state.counters.I ?? 1}f${step.state.fixRound}` : `I${step.peek('I')}`;
  // Agent mode on an API provider: the first turn of a tool loop (tool-loop.ts).
  if (engineerUsesTools(step.config)) return callEngineerTurn(step, proposal, label, fix ? null : 'I');
  requestCall(step, freshSpec(step, 'engineer', label, fix ? null : 'I', engineerPack(step.state, proposal, label)));
}

export function callValidator(step: Step, implementation: ImplementationRecord): void {
  const label = `R${step.peek('R')}`;
  requestCall(step, freshSpec(step, 'validator', label, 'R', validatorPack(step.state, implementation, label)));
}

/** The second review (second-review.ts): the validator's pack, labelled beside the validator's review (R1 → R1r). */
export function callReviewer(step: Step, implementation: ImplementationRecord, validatorReview: CritiqueRecord): void {
  const label = secondReviewLabel(validatorReview.label);
  requestCall(step, freshSpec(step, 'reviewer', label, null, validatorPack(step.state, implementation, label, 'reviewer')));
}

export function synthesizerSpec(step: Step): BuildCallSpec {
  const label = `S${step.peek('S')}`;
  return freshSpec(step, 'synthesizer', label, 'S', synthesizerPack(step.state));
}

export function callSynthesizer(step: Step): void {
  requestCall(step, synthesizerSpec(step));
}
