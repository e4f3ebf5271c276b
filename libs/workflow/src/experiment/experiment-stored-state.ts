import type { ExperimentRunConfig } from '@roundtable/contracts';
import type { UsageSnapshot } from '../engine/call-types';
import { stateFromSnapshot, toSnapshot, type SnapshotRunRow } from '../engine/state-snapshot';
import { initialExperimentState } from './initial-experiment-state';
import type { ExperimentRunState } from './experiment-types';

/**
 * How an ExperimentRunState is kept between steps, as for the panel: runs.workflow_state holds
 * everything the run row's own columns (status, stage, halt reason, config) do not, and usage is
 * rebuilt from the usage tables on every step (engine/state-snapshot.ts).
 */
export type StoredExperimentState = ReturnType<typeof toStoredExperimentState>;

export const toStoredExperimentState = (state: ExperimentRunState) => toSnapshot(state);

/** The state decideExperimentRun() takes; a run that has not started yet has no stored state. */
export function experimentStateOf(run: SnapshotRunRow, usage: UsageSnapshot): ExperimentRunState {
  return stateFromSnapshot<ExperimentRunState>(run, usage, () => initialExperimentState(run.id, run.config as unknown as ExperimentRunConfig));
}
