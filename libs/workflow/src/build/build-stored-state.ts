import type { ProjectConfig, RunStatus, Stage } from '@roundtable/contracts';
import { unversioned, versioned, type Versioned } from '../engine/state-snapshot';
import type { AcceptanceCriterion, BuildRunState, UsageSnapshot } from './build-types';
import { initialBuildState } from './initial-state';
import type { OpenGate } from '../engine/gates';

/**
 * How a BuildRunState is kept between steps (engine/state-snapshot.ts): runs.workflow_state
 * holds the records decide() reasons over — proposals, critiques, implementations with their
 * commits, test results, the synthesis, open questions, file reads, the providers found
 * unusable and the workspace tree —
 * and the row's own columns hold the rest (status, stage, rounds, criteria, halt reason,
 * config, workspace path, label counters and call sequence), which the API and the report
 * read there, so a copy cannot disagree with them. Usage is read with the lock from
 * usage_by_provider and budget_reservations (one row per provider, not per call).
 *
 * The records are also rows of their own tables (proposals, critiques, implementations,
 * test_runs, workspace_ops …), written by the same step: the tables are the audit trail and
 * what the API lists; the snapshot is what the next step starts from. Large outputs stay in
 * their artifacts rows: a test run holds the output's tail, a commit the diff's beginning.
 */
export type StoredBuildState = Pick<
  BuildRunState,
  'proposals' | 'critiques' | 'implementations' | 'testRuns' | 'synthesis' | 'openQuestions' | 'fileReads' | 'toolTurns' | 'unusableProviders' | 'approvals' | 'merge'
> & { tree: string[] };

/** The run-row fields a build state is rebuilt from (RunEntity satisfies it). */
export interface BuildRunRow {
  id: string;
  status: string;
  stage: string;
  round: number;
  fixRound: number;
  criteria: unknown;
  unresolved: boolean;
  haltReason: string | null;
  config: Record<string, unknown>;
  workspacePath: string | null;
  labelCounters: Record<string, number> | null;
  callSeq: number;
  eventSeq: number;
  workflowState: Record<string, unknown> | null;
  /** The gate the run waits at (runs.gate); absent on rows read before gates existed. */
  gate?: Record<string, unknown> | null;
}

/** What the step writes to runs.workflow_state: the records, at the event_seq the step leaves. */
export function toStoredBuildState(state: BuildRunState, eventSeq: number): StoredBuildState & Versioned {
  const { proposals, critiques, implementations, testRuns, synthesis, openQuestions = [], fileReads = [], toolTurns, unusableProviders, approvals, merge } = state;
  const records = {
    proposals,
    critiques,
    implementations,
    testRuns,
    synthesis,
    openQuestions,
    fileReads,
    ...(unusableProviders ? { unusableProviders } : {}),
    // Only once a person decided at a gate or a merge was tried: earlier snapshots stay as they were.
    ...(approvals?.length ? { approvals } : {}),
    ...(merge ? { merge } : {}),
    // Only once an agent-mode engineer on an API provider took a turn.
    ...(toolTurns?.length ? { toolTurns } : {}),
  };
  return versioned({ ...records, tree: state.workspace.tree }, eventSeq);
}

/**
 * True for a run that has taken steps but has no snapshot: one started before snapshots
 * existed. The orchestrator rebuilds its state from the tables once (BUILD_RUN_STATE); the
 * step then writes the snapshot.
 */
export function buildSnapshotMissing(run: Pick<BuildRunRow, 'status' | 'workflowState'>): boolean {
  return run.workflowState === null && run.status !== 'queued';
}

/** The state decide() takes: the snapshot and the row's columns; a run not started yet has no snapshot. */
export function buildStateOf(run: BuildRunRow, usage: UsageSnapshot): BuildRunState {
  const config = run.config as unknown as ProjectConfig;
  const { tree, ...records }: StoredBuildState = run.workflowState
    ? unversioned<StoredBuildState>(run.id, run.workflowState as unknown as StoredBuildState, run.eventSeq)
    : { ...initialBuildState(run.id, config), tree: [] };
  return {
    runId: run.id,
    status: run.status as RunStatus,
    stage: run.stage as Stage,
    round: run.round,
    fixRound: run.fixRound,
    criteria: (run.criteria as AcceptanceCriterion[] | null) ?? null,
    unresolved: run.unresolved,
    haltReason: run.haltReason,
    config,
    workspace: { path: run.workspacePath, tree },
    ...records,
    openQuestions: records.openQuestions ?? [],
    fileReads: records.fileReads ?? [],
    ...(run.gate ? { gate: run.gate as unknown as OpenGate } : {}),
    usage,
    counters: { ...(run.labelCounters ?? {}), call: run.callSeq },
  };
}
