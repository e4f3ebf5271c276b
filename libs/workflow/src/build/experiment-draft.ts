import { ExperimentBudgetConfig, type Critique, type ExperimentRunConfig } from '@roundtable/contracts';
import { markHalted } from '../engine/closing';
import { questionId } from '../engine/answers';
import { factOnly } from './build-definition';
import type { Step } from './build-step';
import type { ProposalRecord } from './build-types';

/**
 * Autonomy 3 and a critique's NEEDS_EXPERIMENT (issue 24): instead of ending on the open
 * question, the build starts an experiment run of its own — the build's proposer drafts a
 * preregistration from the critique, a person approves it at the experiment's gate, it is locked,
 * run, read and reviewed — and waits (needs_input) for its decision, which comes back as the
 * answer to the question: the build then goes on to REVISE with it as evidence. Only with the
 * project's `experiments` block (who reads it) and a repository to pin it to; otherwise the
 * question stays open, as below autonomy 3.
 */
export function mayDraftExperiment(step: Step, verdict: Critique['verdict']): boolean {
  return verdict === 'NEEDS_EXPERIMENT' && step.config.autonomy === 3 && !!step.config.experiments && !!step.config.repo;
}

/** What the experiment must settle, for its proposer: the objective, the proposal and the critique's asks. */
function draftFrom(label: string, proposal: ProposalRecord, critique: Critique): string {
  const asks = [...critique.problems.map((p) => p.description), ...critique.tests_required.map((t) => `test: ${t}`)];
  return [
    `The build's objective: ${proposal.body.claim}`,
    `${label} (the critic) says NEEDS_EXPERIMENT on ${proposal.label}: ${asks.join('; ') || critique.counterarguments.join('; ') || 'no detail given'}`,
    'Draft the experiment that settles this, run in the repository as it is now.',
  ].join('\n');
}

export function draftExperiment(step: Step, label: string, proposal: ProposalRecord, critique: Critique, refs: string[]): void {
  const experiments = step.config.experiments!;
  const qid = questionId((step.state.openQuestions ?? []).length - 1);
  const childRunId = `${step.runId}_${qid.toLowerCase()}`;
  const experimentId = `exp_${childRunId}`;
  const config: ExperimentRunConfig = {
    workflow: 'experiment',
    project: step.config.project,
    repo: step.config.repo!,
    domain: step.config.domain,
    draft_from: draftFrom(label, proposal, critique),
    proposer: experiments.proposer ?? step.config.agents.proposer,
    interpreter: experiments.interpreter,
    critic: experiments.critic,
    providers: step.config.providers,
    budget: ExperimentBudgetConfig.parse(experiments.budget ?? {}),
    experiment_id: experimentId,
    source: { build_run_id: step.runId, question_id: qid },
  };
  // Like every command that is not a call, it has an op id: here, the experiment run it starts.
  step.commands.push({ kind: 'experiment.draft', opId: childRunId, experimentId, childRunId, questionId: qid, config });
  const why = `${label} says NEEDS_EXPERIMENT on ${proposal.label}: experiment ${experimentId} (run ${childRunId}) drafts a preregistration that waits for a person's approval; its decision answers ${qid}, and the build goes on with it (autonomy 3)`;
  markHalted(step, 'HALTED', why, refs);
  factOnly(step, 'the critic asked for an experiment, which is running', { status: 'needs_input', stage: 'HALTED' });
}
