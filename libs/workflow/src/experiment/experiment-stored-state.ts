import type { ExperimentRunConfig, ExperimentStage, RunStatus } from '@roundtable/contracts';
import type { UsageSnapshot } from '../engine/call-types';
import { unversioned } from '../engine/state-snapshot';
import type { PanelRunRow } from '../panel/panel-stored-state';
import { initialExperimentState } from './initial-experiment-state';
import type { ExperimentRunState } from './experiment-types';

/**
 * How an ExperimentRunState is kept between steps, as for the panel: runs.workflow_state holds
 * everything the run row's own columns (status, stage, halt reason, config) do not, and usage is
 * rebuilt from the usage tables on every step.
 */
export type StoredExperimentState = Omit<ExperimentRunState, 'runId' | 'status' | 'stage' | 'haltReason' | 'config' | 'usage'>;

export function toStoredExperimentState(state: ExperimentRunState): StoredExperimentState {
  const { runId: _runId, status: _status, stage: _stage, haltReason: _haltReason, config: _config, usage: _usage, ...stored } = state;
  return stored;
}

/** The state decideExperimentRun() takes; a run that has not started yet has no stored state. */
export function experimentStateOf(run: PanelRunRow, usage: UsageSnapshot): ExperimentRunState {
  const config = run.config as unknown as ExperimentRunConfig;
  const snapshot = run.workflowState as unknown as StoredExperimentState | null;
  const stored = snapshot
    ? unversioned<StoredExperimentState>(run.id, snapshot, run.eventSeq ?? Number.MAX_SAFE_INTEGER)
    : toStoredExperimentState(initialExperimentState(run.id, config));
  return {
    ...stored,
    runId: run.id,
    status: run.status as RunStatus,
    stage: run.stage as ExperimentStage,
    haltReason: run.haltReason,
    config,
    usage,
    counters: { ...stored.counters, call: run.callSeq },
  };
}
