import type { PanelProjectConfig, PanelStage, RunStatus } from '@roundtable/contracts';
import type { UsageSnapshot } from '../engine/call-types';
import { unversioned } from '../engine/state-snapshot';
import { initialPanelState } from './initial-panel-state';
import type { PanelRunState } from './panel-types';

/**
 * How a PanelRunState is kept between steps: runs.workflow_state holds everything the run row's
 * own columns do not. Status, stage, halt reason and config are the row's (the API and the
 * report read them there, so they must not be able to disagree with a copy); usage is rebuilt
 * from usage_by_provider and budget_reservations on every step, as for the build; the call
 * counter is runs.call_seq, which numbers the agent_calls rows.
 */
export type StoredPanelState = Omit<PanelRunState, 'runId' | 'status' | 'stage' | 'haltReason' | 'config' | 'usage'>;

/** The run-row fields a panel state is rebuilt from (RunEntity satisfies it). */
export interface PanelRunRow {
  id: string;
  status: string;
  stage: string;
  haltReason: string | null;
  config: Record<string, unknown>;
  callSeq: number;
  /** Checked against the snapshot's own (engine/state-snapshot.ts); absent: not checked. */
  eventSeq?: number;
  workflowState: Record<string, unknown> | null;
}

export function toStoredPanelState(state: PanelRunState): StoredPanelState {
  const { runId: _runId, status: _status, stage: _stage, haltReason: _haltReason, config: _config, usage: _usage, ...stored } = state;
  return stored;
}

/** The state decidePanel() takes; a run that has not started yet has no stored state. */
export function panelStateOf(run: PanelRunRow, usage: UsageSnapshot): PanelRunState {
  const config = run.config as unknown as PanelProjectConfig;
  const snapshot = run.workflowState as unknown as StoredPanelState | null;
  const stored = snapshot
    ? unversioned<StoredPanelState>(run.id, snapshot, run.eventSeq ?? Number.MAX_SAFE_INTEGER)
    : toStoredPanelState(initialPanelState(run.id, config));
  return {
    ...stored,
    runId: run.id,
    status: run.status as RunStatus,
    stage: run.stage as PanelStage,
    haltReason: run.haltReason,
    config,
    usage,
    counters: { ...stored.counters, call: run.callSeq },
  };
}
