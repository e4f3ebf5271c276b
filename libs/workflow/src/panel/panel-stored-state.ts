import type { PanelProjectConfig } from '@roundtable/contracts';
import type { UsageSnapshot } from '../engine/call-types';
import { stateFromSnapshot, toSnapshot, type SnapshotRunRow } from '../engine/state-snapshot';
import { initialPanelState } from './initial-panel-state';
import { cleanEvidenceOf, markCleanEvidence } from './panel-evidence';
import type { PanelRunState } from './panel-types';

/**
 * How a PanelRunState is kept between steps: runs.workflow_state holds everything the run row's
 * own columns do not. Status, stage, halt reason and config are the row's (the API and the
 * report read them there, so they must not be able to disagree with a copy); usage is rebuilt
 * from usage_by_provider and budget_reservations on every step, as for the build; the call
 * counter is runs.call_seq, which numbers the agent_calls rows (engine/state-snapshot.ts).
 */
export type StoredPanelState = Omit<PanelRunState, 'runId' | 'status' | 'stage' | 'haltReason' | 'config' | 'usage'>;

/** The run-row fields a panel state is rebuilt from (RunEntity satisfies it). */
export type PanelRunRow = SnapshotRunRow;

export function toStoredPanelState(state: PanelRunState): StoredPanelState {
  // The records found to hold no forged evidence markup (panel-evidence.ts), so later steps do not
  // scan them again; not part of the state: panelStateOf takes it out.
  return { ...toSnapshot(state), evidence_clean: cleanEvidenceOf(state) } as StoredPanelState;
}

/** The state decidePanel() takes; a run that has not started yet has no stored state. */
export function panelStateOf(run: PanelRunRow, usage: UsageSnapshot): PanelRunState {
  const { evidence_clean: clean, ...stored } = (run.workflowState ?? {}) as Record<string, unknown>;
  const state = stateFromSnapshot<PanelRunState>(run.workflowState ? { ...run, workflowState: stored } : run, usage, () =>
    initialPanelState(run.id, run.config as unknown as PanelProjectConfig),
  );
  markCleanEvidence(state, clean);
  return state;
}
