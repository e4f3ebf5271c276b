import { UnrecoverableError } from 'bullmq';
import { parseWorkspaceOp, readOpFiles, Stage } from '@roundtable/contracts';
import { addStatement, runStatement, WorkspaceOpEntity } from '@roundtable/persistence';
import {
  buildSnapshotMissing,
  type BuildEvent,
  type BuildRunState,
  type FinishedCall,
  type StepContext,
  type StepResult,
  WORKFLOWS,
} from '@roundtable/workflow';
import { usageOfRow } from '../../sql/run-usage.sql';
import { commonRunColumns } from '../../step-writer';
import { engineJobs } from '../engine-jobs';
import type { JobTable, OrchestratedWorkflow } from '../workflow-definition';
import { DIFF_PROMPT_CHARS, implementationDiff, labelOfId, loadBuildRunState, testRunRecord } from './build-run-state.sql';
import { recordTestRun, testRunEntityOf, writeRecord } from './build-rows';
import { APPLIED_DIFF_TEXT, UPDATE_RUN_AFTER_STEP } from './build-rows.sql';

/**
 * The build's job → event mapping: the engine's jobs (engine-jobs.ts), and the workspace and
 * test reports as the workflow events they stand for, reading the rows the workers wrote.
 */
export const BUILD_JOBS: JobTable<BuildEvent> = {
  ...engineJobs<FinishedCall, Stage>('build', Stage.options),
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
      if (op.kind === 'merge') {
        // A refusal is an answer too (merged: false, with the reason); only a broken op has no result.
        const r = op.status === 'done' ? op.result : null;
        const outcome = r
          ? { merged: r.merged, into: r.into, strategy: r.strategy, commit: r.commit, previous: r.previous, reason: r.reason, code: r.code }
          : { merged: false, into: '', strategy: '', commit: null, previous: null, reason: op.error ?? 'the merge could not run', code: 'failed' };
        return { type: 'merge_finished', opId: op.id, outcome };
      }
      // The export runs after the run ended: its artifacts are the answer, the workflow has nothing to decide.
      if (op.kind === 'export') return null;
      if (op.kind === 'tool') {
        // A tool op that could not run at all (no workspace) answers every call with why, so the loop goes on.
        if (op.status === 'done') return { type: 'tools_ran', opId: op.id, results: op.result.results, changes: op.result.changes };
        const why = op.error ?? 'the tool could not run';
        return { type: 'tools_ran', opId: op.id, results: op.request.calls.map((c) => ({ id: c.id, name: c.name, content: why, is_error: true })), changes: null };
      }
      if (op.kind !== 'apply') throw new Error(`workspace.done for op ${op.id}, a ${op.kind} op (its report is tests.done)`);
      const implementationLabel = labelOfId(run.id, row.implementationId) ?? '';
      if (op.status !== 'done') return { type: 'files_rejected', opId: op.id, implementationLabel, error: op.error ?? 'files were rejected' };
      const artifactId = op.result.diff_artifact_id;
      // The commit enters the state with the beginning of its diff (what a prompt may show).
      const {
        rows: [diffText],
      } = artifactId ? await runStatement(em, APPLIED_DIFF_TEXT, artifactId, DIFF_PROMPT_CHARS) : { rows: [] };
      return {
        type: 'files_applied',
        opId: op.id,
        implementationLabel,
        tree: op.result.tree,
        ...(artifactId
          ? {
              diffArtifactId: artifactId,
              diff: implementationDiff({ id: op.id, implementationId: row.implementationId ?? '', result: op.result, text: diffText?.text ?? null, chars: diffText?.chars ?? null }),
            }
          : {}),
      };
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
  // An appeal is the panel's; the api refuses one for a build run, so one that gets here is a bug, not retried.
  'run.appeal': {
    afterTheEnd: false,
    toEvent: ({ run }) => {
      throw new UnrecoverableError(`job run.appeal is not for the orchestrator's build workflow (run ${run.id} is a build run)`);
    },
  },
};

/**
 * The build as the orchestrator runs it: its state from the snapshot on the run row and the
 * usage read with the lock, the pure decide(), its rows and the next snapshot. A run started
 * before snapshots existed is rebuilt from its tables once (BUILD_RUN_STATE).
 */
export const buildWorkflow: OrchestratedWorkflow<BuildRunState, BuildEvent, StepResult, StepContext> = {
  jobs: BUILD_JOBS,
  loadState: async (run, stateRow, now, em) => {
    if (!buildSnapshotMissing(run)) return WORKFLOWS.build.stateOf(run, usageOfRow(stateRow, run, now));
    // A run from before snapshots is rebuilt once from its rows; the caps across runs read with the lock still hold it.
    const state = await loadBuildRunState(em, run, now);
    const { shared } = usageOfRow(stateRow, run, now);
    return shared ? { ...state, usage: { ...state.usage, shared } } : state;
  },
  decide: WORKFLOWS.build.decide,
  async write(batch, { em, run, event, result, events, chain }) {
    const s = result.state;
    // Recorded after decide(), because the workflow tells a new test run from one it has already seen by whether the state holds it.
    if (event.type === 'tests_finished') await recordTestRun(em, run.id, event.opId);
    const at = addStatement(batch, UPDATE_RUN_AFTER_STEP, run.id, {
      ...commonRunColumns(run, s, result, events, chain),
      round: s.round,
      fixRound: s.fixRound,
      criteria: s.criteria,
      unresolved: s.unresolved,
      workspacePath: s.workspace.path,
      workflowState: WORKFLOWS.build.toStored(s, run.eventSeq + events),
    });
    for (const r of result.records) writeRecord(batch, run.id, r);
    return at;
  },
};
