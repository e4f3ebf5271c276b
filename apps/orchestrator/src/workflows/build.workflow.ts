import { UnrecoverableError } from 'bullmq';
import { parseWorkspaceOp, readOpFiles, type Stage } from '@roundtable/contracts';
import { addStatement, runStatement, WorkspaceOpEntity } from '@roundtable/persistence';
import { decide, type BuildEvent, type BuildRunState, type StepContext, type StepResult } from '@roundtable/workflow';
import { finishedCallEvent, recordTestRun, testRunEntityOf } from '../job-to-event';
import { buildRunStateFromRow, labelOfId, testRunRecord } from '../sql/build-run-state.sql';
import { LAST_HALT_FROM_STAGE } from '../sql/job-reads.sql';
import { UPDATE_RUN_AFTER_STEP } from '../sql/step-writes.sql';
import { commonRunColumns, writeRecord } from '../step-writer';
import type { JobTable, OrchestratedWorkflow } from './workflow-definition';

/**
 * The build's job → event mapping: a queue job (ids only) as the workflow event it stands for,
 * reading the rows the workers wrote. A finished call was settled with the run lock
 * (SETTLE_FINISHED_CALL); finishedCallEvent maps the settled row.
 */
export const BUILD_JOBS: JobTable<BuildEvent> = {
  'run.start': { afterTheEnd: false, toEvent: () => ({ type: 'start' }) },
  'run.cancel': { afterTheEnd: false, toEvent: () => ({ type: 'cancel' }) },
  'agent.done': { afterTheEnd: true, toEvent: ({ run, payload, settled }) => finishedCallEvent(run.id, String(payload.callId), settled ?? undefined) },
  'workspace.done': {
    afterTheEnd: false,
    toEvent: async ({ em, run, payload: p }) => {
      const row = await em.findOneByOrFail(WorkspaceOpEntity, { id: p.opId, runId: run.id });
      const op = parseWorkspaceOp(row);
      if (op.kind === 'read') return { type: 'files_read', opId: op.id, files: readOpFiles(op) ?? [] };
      if (op.kind === 'prepare') {
        return op.status === 'done'
          ? { type: 'workspace_prepared', opId: op.id, path: op.result.path, tree: op.result.tree }
          : { type: 'workspace_failed', opId: op.id, error: op.error ?? 'workspace preparation failed' };
      }
      if (op.kind !== 'apply') throw new Error(`workspace.done for op ${op.id}, a ${op.kind} op (its report is tests.done)`);
      const implementationLabel = labelOfId(run.id, row.implementationId) ?? '';
      return op.status === 'done'
        ? {
            type: 'files_applied',
            opId: op.id,
            implementationLabel,
            tree: op.result.tree,
            ...(op.result.diff_artifact_id ? { diffArtifactId: op.result.diff_artifact_id } : {}),
          }
        : { type: 'files_rejected', opId: op.id, implementationLabel, error: op.error ?? 'files were rejected' };
    },
  },
  'tests.done': {
    afterTheEnd: false,
    toEvent: async ({ em, run, payload: p }) => {
      const row = await em.findOneByOrFail(WorkspaceOpEntity, { id: p.opId, runId: run.id });
      const op = parseWorkspaceOp(row);
      if (op.kind !== 'tests') throw new Error(`tests.done for op ${op.id}, a ${op.kind} op (its report is workspace.done)`);
      if (op.status !== 'done') return { type: 'tests_failed_to_run', opId: op.id, error: op.error ?? 'the test command could not run' };
      const entity = testRunEntityOf(em, run.id, row, op.result);
      return { type: 'tests_finished', opId: op.id, testRun: testRunRecord(run.id, entity, op.result.output_tail) };
    },
  },
  'run.resume': {
    afterTheEnd: true,
    toEvent: async ({ em, run, payload: p }) => {
      if (p.from) return { type: 'resume', at: p.from, rerun: true, caps: p.caps };
      // Without a named stage, restart where the halting decision left the run.
      const {
        rows: [last],
      } = await runStatement(em, LAST_HALT_FROM_STAGE, run.id);
      return { type: 'resume', at: last?.from_stage ?? (run.stage as Stage), rerun: false, caps: p.caps };
    },
  },
  // An appeal is the panel's; the api refuses one for a build run, so one that gets here is a bug, not retried.
  'run.appeal': {
    afterTheEnd: false,
    toEvent: ({ run }) => {
      throw new UnrecoverableError(`job run.appeal is not for the orchestrator's build workflow (run ${run.id} is a build run)`);
    },
  },
};

/** The build as the orchestrator runs it: its state rebuilt from the state query, the pure decide(), its rows. */
export const buildWorkflow: OrchestratedWorkflow<BuildRunState, BuildEvent, StepResult, StepContext> = {
  jobs: BUILD_JOBS,
  loadState: (run, stateRow, now) => buildRunStateFromRow(run, stateRow, now),
  decide,
  async write(batch, { em, run, event, result, events }) {
    const s = result.state;
    // Recorded after decide(), because the workflow tells a new test run from one it has already seen by whether the state holds it.
    if (event.type === 'tests_finished') await recordTestRun(em, run.id, event.opId);
    const at = addStatement(batch, UPDATE_RUN_AFTER_STEP, run.id, {
      ...commonRunColumns(run, s, result, events),
      round: s.round,
      fixRound: s.fixRound,
      criteria: s.criteria,
      unresolved: s.unresolved,
      workspacePath: s.workspace.path,
    });
    for (const r of result.records) writeRecord(batch, run.id, r);
    return at;
  },
};
