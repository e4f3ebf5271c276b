import type { BuildRole, Critique, Problem, Proposal } from '@roundtable/contracts';
import type { AcceptanceCriterion, CritiqueRecord, FinishedCall, ProposalRecord } from './build-types';
import { callCritic, callEngineer, callReviser, callSynthesizer } from './build-calls';
import { markHalted } from '../engine/closing';
import { raiseQuestion } from '../engine/answers';
import { factOnly, haltBuild } from './build-definition';
import { latestProposal, type Step } from './build-step';
import { draftExperiment, mayDraftExperiment } from './experiment-draft';
import { criteriaGate } from './gates.stage';

/**
 * The debate stages (seed §8): PROPOSE → CRITIQUE → REVISE … until a critique ACCEPTs, the
 * round limit is reached, or the run stops for advice or a human decision.
 */

export function setProposalStatus(step: Step, label: string, status: ProposalRecord['status']): void {
  const i = step.state.proposals.findIndex((p) => p.label === label);
  if (i < 0 || step.state.proposals[i].status === status) return;
  step.state.proposals[i] = { ...step.state.proposals[i], status };
  step.records.push({ kind: 'proposal_status', label, status });
}

export function onProposal(step: Step, call: FinishedCall, label: string, body: Proposal): void {
  const previous = latestProposal(step.state);
  const record: ProposalRecord = {
    id: step.id(label),
    label,
    callId: call.id,
    round: step.state.round,
    revisionOf: previous?.label ?? null,
    status: 'proposed',
    body,
  };
  if (previous) setProposalStatus(step, previous.label, 'superseded');
  step.state.proposals.push(record);
  step.records.push({ kind: 'proposal', record });
  step.emit('proposal_recorded', { label, claim: body.claim, confidence: body.confidence, revision_of: record.revisionOf });
  step.go('CRITIQUE', previous ? `revision ${label} of ${previous.label} valid` : `${label} valid`, [label]);
  callCritic(step, record);
}

export function normalised(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Acceptance criteria: the proposal's tests, then the critic's, de-duplicated; frozen from here on. */
export function lockCriteria(step: Step, proposal: ProposalRecord, critique: Critique): void {
  lockCriteriaOf(step, [...proposal.body.tests_required, ...critique.tests_required]);
}

/** Criteria from texts, de-duplicated, frozen from here on (a solo run's are its requirements, solo.ts). */
export function lockCriteriaOf(step: Step, texts: readonly string[]): void {
  const seen = new Set<string>();
  const criteria: AcceptanceCriterion[] = [];
  for (const text of texts) {
    const key = normalised(text);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    criteria.push({ id: `AC${criteria.length + 1}`, text: text.trim() });
  }
  step.state.criteria = criteria;
  step.emit('criteria_locked', { criteria });
}

export function raiseOpenQuestion(step: Step, role: BuildRole, question: string): void {
  raiseQuestion(step, role, question);
}

export function onCritique(step: Step, call: FinishedCall, label: string, body: Critique): void {
  const proposal = latestProposal(step.state);
  if (!proposal) return;
  const record: CritiqueRecord = {
    id: step.id(label),
    label,
    callId: call.id,
    targetKind: 'proposal',
    targetLabel: proposal.label,
    verdict: body.verdict,
    body,
  };
  step.state.critiques.push(record);
  step.records.push({ kind: 'critique', record });
  step.emit('critique_recorded', { label, target: proposal.label, verdict: body.verdict, problems: body.problems.length });
  applyCritique(step, record, proposal);
}

/** The §8 verdict branch; also how a resumed run applies a critique it already paid for. */
export function applyCritique(step: Step, record: CritiqueRecord, proposal: ProposalRecord): void {
  const { label } = record;
  const body = record.body as Critique;
  const refs = [label, proposal.label];
  const { max_rounds } = step.config.budget;
  switch (body.verdict) {
    case 'ACCEPT':
      setProposalStatus(step, proposal.label, 'accepted');
      lockCriteria(step, proposal, body);
      return implementOrStop(step, proposal, `${label} ACCEPTs ${proposal.label}`, refs);

    case 'REVISE': {
      setProposalStatus(step, proposal.label, 'criticized');
      if (step.config.autonomy === 0) return stopForAdvice(step, `${label} says REVISE on ${proposal.label}`, refs);
      if (step.state.round < max_rounds) {
        step.state.round += 1;
        step.go('REVISE', `${label} says REVISE on ${proposal.label}: revision round ${step.state.round} of ${max_rounds}`, refs);
        return callReviser(step, proposal, record);
      }
      const blockers = body.problems.filter((p) => p.severity === 'blocker');
      if (blockers.length > 0) return needsInput(step, record, proposal, blockers);
      if (step.config.on_unresolved === 'halt') {
        return haltBuild(step, `unresolved criticisms at the round limit (on_unresolved: halt): ${label} still says REVISE on ${proposal.label} after ${max_rounds} revision rounds`, { refs });
      }
      step.state.unresolved = true;
      lockCriteria(step, proposal, body);
      return implementOrStop(
        step,
        proposal,
        `${label} still says REVISE on ${proposal.label} at the round limit (${max_rounds}); open criticisms go with it and are reported as disagreements (on_unresolved: implement)`,
        refs,
      );
    }

    case 'REJECT':
      setProposalStatus(step, proposal.label, 'rejected');
      step.go('SYNTHESIZE', `${label} REJECTs ${proposal.label}: nothing is built; the report says why`, refs);
      return callSynthesizer(step);

    case 'NEEDS_EVIDENCE':
    case 'NEEDS_EXPERIMENT': {
      setProposalStatus(step, proposal.label, 'criticized');
      const asks = [...body.problems.map((p) => p.description), ...body.tests_required.map((t) => `test: ${t}`)];
      const detail = asks.length ? asks.join('; ') : body.counterarguments.join('; ') || 'no detail given';
      raiseOpenQuestion(step, 'critic', `${label} (${body.verdict}) on ${proposal.label}: ${detail}`);
      if (mayDraftExperiment(step, body.verdict)) return draftExperiment(step, label, proposal, body, refs);
      if (step.config.on_needs_evidence === 'ask') {
        markHalted(step, 'HALTED', `${label} says ${body.verdict} on ${proposal.label}: waiting for a person to answer with the evidence (on_needs_evidence: ask)`, refs);
        return factOnly(step, 'the critic needs evidence a person can give', { status: 'needs_input', stage: 'HALTED' });
      }
      step.go('SYNTHESIZE', `${label} says ${body.verdict} on ${proposal.label}: recorded as an open question (no researcher in v1)`, refs);
      return callSynthesizer(step);
    }
  }
}

/** Autonomy 0: advice only, the run stops after the first critique. */
export function stopForAdvice(step: Step, why: string, refs: string[]): void {
  step.go('SYNTHESIZE', `${why}; autonomy 0: advice only, the run stops after the first critique`, refs);
  callSynthesizer(step);
}

/** Where the full pipeline implements, autonomy 0 and 1 synthesize instead. */
export function implementOrStop(step: Step, proposal: ProposalRecord, why: string, refs: string[]): void {
  if (step.config.autonomy === 0) return stopForAdvice(step, why, refs);
  if (step.config.autonomy === 1) {
    step.go('SYNTHESIZE', `${why}; autonomy 1: criteria locked, nothing is implemented`, refs);
    return callSynthesizer(step);
  }
  if (criteriaGate(step, proposal, why, refs)) return;
  step.go('IMPLEMENT', why, refs);
  callEngineer(step, proposal);
}

/**
 * Policy change (seed status log, 2026-09-26): a blocker still open at the round limit stops the
 * run as needs_input instead of locking criteria a human has not agreed to.
 */
export function needsInput(step: Step, critique: CritiqueRecord, proposal: ProposalRecord, blockers: Problem[]): void {
  const reason = `blocker still open at the round limit: ${blockers.map((b) => b.description).join('; ')}`;
  markHalted(step, 'HALTED', reason, [critique.label, proposal.label]);
  for (const b of blockers) {
    raiseOpenQuestion(
      step,
      'critic',
      `${critique.label} blocker on ${proposal.label} is still open after ${step.config.budget.max_rounds} revision rounds: ` +
        `${b.description}${b.location ? ` (${b.location})` : ''}. Decide how to proceed and answer this question: the run then goes on with your answer.`,
    );
  }
  factOnly(step, 'a blocker needs a human decision', { status: 'needs_input', stage: 'HALTED' });
}

