import { emptyUsage } from '../engine/call-types';
import { initialPanelState } from './initial-panel-state';
import { panelHappyPath, testPanelConfig } from './panel-scenario.fixture';
import { panelStateOf, toStoredPanelState, type PanelRunRow } from './panel-stored-state';

/** The run row as the orchestrator writes it after a step. */
function rowOf(state: ReturnType<typeof panelHappyPath>['state'], callSeq: number): PanelRunRow {
  return {
    id: state.runId,
    status: state.status,
    stage: state.stage,
    haltReason: state.haltReason,
    config: state.config as unknown as Record<string, unknown>,
    callSeq,
    workflowState: JSON.parse(JSON.stringify(toStoredPanelState(state))),
  };
}

describe('the panel state kept on the run row', () => {
  it('round-trips through JSON: the row columns and workflow_state rebuild the same state', () => {
    const state = panelHappyPath().state;
    const usage = { ...emptyUsage(), used: { calls: 16, tokens: 900, costUsd: 0.2 } };
    expect(panelStateOf(rowOf(state, state.counters.call), usage)).toEqual({ ...state, usage });
  });

  it('keeps out of workflow_state what has its own column, the config and the usage', () => {
    const stored = toStoredPanelState(panelHappyPath().state);
    for (const key of ['runId', 'status', 'stage', 'haltReason', 'config', 'usage']) expect(stored).not.toHaveProperty(key);
    expect(stored.verdicts).toHaveLength(5);
  });

  it('a run not started yet (no workflow_state) is the initial state, and the call counter is runs.call_seq', () => {
    const config = testPanelConfig();
    const row: PanelRunRow = { id: 'run9', status: 'queued', stage: 'INIT', haltReason: null, config: config as unknown as Record<string, unknown>, callSeq: 0, workflowState: null };
    expect(panelStateOf(row, emptyUsage())).toEqual({ ...initialPanelState('run9', config), counters: { call: 0 } });
    expect(panelStateOf({ ...row, callSeq: 7 }, emptyUsage()).counters.call).toBe(7);
  });
});
