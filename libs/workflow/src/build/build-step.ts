import type { Stage, Verdict } from '@roundtable/contracts';
import { EngineStep } from '../engine/step-accumulator';
import type { BuildRunState, Command, DomainRecord, ImplementationRecord, ProposalRecord, StepContext } from './build-types';

/** One build step's output, accumulated over a private copy of the state; the input is never touched. */
export class Step extends EngineStep<BuildRunState, Stage, DomainRecord, Command, Verdict> {
  constructor(
    input: BuildRunState,
    readonly ctx: StepContext,
  ) {
    super(
      {
        ...input,
        criteria: input.criteria ? [...input.criteria] : null,
        workspace: { ...input.workspace, tree: [...input.workspace.tree] },
        proposals: [...input.proposals],
        critiques: [...input.critiques],
        implementations: [...input.implementations],
        testRuns: [...input.testRuns],
        openQuestions: [...(input.openQuestions ?? [])],
        fileReads: [...(input.fileReads ?? [])],
        counters: { ...input.counters },
      },
      ctx.prices,
      ctx.retryDelaysMs,
    );
  }

  opId(): string {
    return `${this.runId}-op${this.bump('op')}`;
  }

  protected outcome() {
    const body = this.state.synthesis?.body ?? null;
    return { verdict: body?.overall_verdict ?? null, confidence: body?.confidence ?? null };
  }
}

export function latestProposal(state: BuildRunState): ProposalRecord | undefined {
  return state.proposals[state.proposals.length - 1];
}

export function latestImplementation(state: BuildRunState): ImplementationRecord | undefined {
  return state.implementations[state.implementations.length - 1];
}
