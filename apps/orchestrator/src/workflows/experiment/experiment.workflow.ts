import { UnrecoverableError } from 'bullmq';
import { ExperimentStage, parseWorkspaceOp } from '@roundtable/contracts';
import { addStatement, preregistrationHash, WorkspaceOpEntity, type StatementBatch } from '@roundtable/persistence';
import {
  versioned,
  WORKFLOWS,
  type ExperimentEvent,
  type ExperimentFinishedCall,
  type ExperimentRecord,
  type ExperimentRunState,
  type ExperimentStepContext,
  type ExperimentStepResult,
  type MethodOutcome,
} from '@roundtable/workflow';
import { INSERT_OPEN_QUESTION } from '../../sql/open-questions.sql';
import { usageOfRow } from '../../sql/run-usage.sql';
import { UPDATE_SNAPSHOT_RUN_AFTER_STEP } from '../../sql/snapshot-run-after-step.sql';
import { commonRunColumns } from '../../step-writer';
import { engineJobs } from '../engine-jobs';
import { IGNORED, type JobTable, type OrchestratedWorkflow } from '../workflow-definition';
import { DECIDE_EXPERIMENT, LOCK_DRAFTED_EXPERIMENT, LOG_IDEA_EVIDENCE, REJECT_DRAFTED_EXPERIMENT, STORE_EXPERIMENT_RESULT } from './experiment-rows.sql';

/**
 * The experiment's job → event mapping (issue 24): the engine's jobs, and the method's command
 * reported by the test-runner (tests.done for an `experiment` op). It has no workspace of its
 * own to prepare or apply to, and no appeal.
 */
export const EXPERIMENT_JOBS: JobTable<ExperimentEvent> = {
  ...engineJobs<ExperimentFinishedCall, ExperimentStage>('experiment', ExperimentStage.options),
  'tests.done': {
    afterTheEnd: false,
    toEvent: async ({ em, run, payload: p }) => {
      const op = parseWorkspaceOp(await em.findOneByOrFail(WorkspaceOpEntity, { id: p.opId, runId: run.id }));
      if (op.kind !== 'experiment') throw new UnrecoverableError(`tests.done for op ${op.id}, a ${op.kind} op: run ${run.id} is an experiment`);
      return { type: 'method_ran', opId: op.id, outcome: methodOutcome(run.id, op) };
    },
  },
  'workspace.done': IGNORED,
  'run.appeal': {
    afterTheEnd: false,
    toEvent: ({ run }) => {
      throw new UnrecoverableError(`job run.appeal is not for the orchestrator's experiment workflow (run ${run.id} is an experiment)`);
    },
  },
};

/** What the op came to: the metrics, or why there are none (a refusal, a failed command, missing or non-numeric metrics). */
function methodOutcome(runId: string, op: ReturnType<typeof parseWorkspaceOp> & { kind: 'experiment' }): MethodOutcome {
  if (op.status !== 'done') return { ok: false, error: op.error ?? 'the method could not run' };
  const r = op.result;
  if (r.metrics === null) return { ok: false, error: r.metrics_error ?? 'the command reported no metrics' };
  return {
    ok: true,
    result: {
      prereg_hash: r.prereg_hash,
      commit: r.commit,
      metrics: r.metrics,
      exit_code: r.exit_code,
      duration_s: r.duration_s,
      output_artifact_id: r.output_artifact_id,
      output_tail: r.output_tail,
      run_id: runId,
    },
  };
}

/** The experiments row as a step changes it, and a disagreeing critic's question. */
function writeRecord(batch: StatementBatch, runId: string, r: ExperimentRecord): void {
  switch (r.kind) {
    case 'experiment_locked':
      addStatement(batch, LOCK_DRAFTED_EXPERIMENT, r.experimentId, r.preregistration, preregistrationHash(r.preregistration));
      return;
    case 'experiment_rejected':
      addStatement(batch, REJECT_DRAFTED_EXPERIMENT, r.experimentId);
      return;
    case 'experiment_result':
      addStatement(batch, STORE_EXPERIMENT_RESULT, r.experimentId, r.result);
      return;
    case 'experiment_decided':
      addStatement(batch, DECIDE_EXPERIMENT, r.experimentId, r.decision, r.interpretation);
      return;
    case 'open_question':
      addStatement(batch, INSERT_OPEN_QUESTION, runId, r.role, r.question);
      return;
    case 'idea_evidence':
      addStatement(batch, LOG_IDEA_EVIDENCE, r.ideaId, r.claim, r.source, r.experimentId);
      return;
  }
}

/**
 * The experiment as the orchestrator runs it: its state is the run row's snapshot (draft,
 * result, readings), decided by the pure decideExperimentRun(); the experiments row follows it.
 */
export const experimentWorkflow: OrchestratedWorkflow<ExperimentRunState, ExperimentEvent, ExperimentStepResult, ExperimentStepContext> = {
  jobs: EXPERIMENT_JOBS,
  loadState: (run, stateRow, now) => WORKFLOWS.experiment.stateOf(run, usageOfRow(stateRow, run, now)),
  decide: WORKFLOWS.experiment.decide,
  async write(batch, { run, result, events, chain }) {
    const s = result.state;
    const at = addStatement(batch, UPDATE_SNAPSHOT_RUN_AFTER_STEP, run.id, {
      ...commonRunColumns(run, s, result, events, chain),
      workflowState: versioned(WORKFLOWS.experiment.toStored(s), run.eventSeq + events),
    });
    for (const r of result.records) writeRecord(batch, run.id, r);
    return at;
  },
};
