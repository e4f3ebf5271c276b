import { emptyUsage } from '../engine/call-types';
import { initialBuildState } from './initial-state';
import { happyPath, testConfig } from './build-scenario.fixture';
import type { BuildRunState } from './build-types';
import { buildSnapshotMissing, buildStateOf, toStoredBuildState, type BuildRunRow } from './build-stored-state';

/** The run row as the orchestrator leaves it after a step: its columns, and the snapshot through JSON (jsonb). */
function rowOf(state: BuildRunState, eventSeq: number): BuildRunRow {
  const { call, ...labelCounters } = state.counters;
  return {
    id: state.runId,
    status: state.status,
    stage: state.stage,
    round: state.round,
    fixRound: state.fixRound,
    criteria: state.criteria,
    unresolved: state.unresolved,
    haltReason: state.haltReason,
    config: state.config as unknown as Record<string, unknown>,
    workspacePath: state.workspace.path,
    labelCounters,
    callSeq: call ?? 0,
    eventSeq,
    workflowState: JSON.parse(JSON.stringify(toStoredBuildState(state, eventSeq))),
  };
}

describe('the build state kept on the run row', () => {
  it('round-trips through JSON: the row columns and workflow_state rebuild the same state', () => {
    const state = happyPath().state;
    expect(state.status).toBe('done');
    const usage = { ...emptyUsage(), used: { calls: 8, tokens: 4000, costUsd: 0.1 } };
    expect(buildStateOf(rowOf(state, 30), usage)).toEqual({ ...state, openQuestions: state.openQuestions ?? [], fileReads: state.fileReads ?? [], usage });
  });

  it('keeps the providers found unusable in this run (the close must not ask them again)', () => {
    const state: BuildRunState = { ...happyPath().state, unusableProviders: { anthropic: 'AUTH' } };
    expect(buildStateOf(rowOf(state, 30), state.usage).unusableProviders).toEqual({ anthropic: 'AUTH' });
  });

  it('keeps out of workflow_state what has its own column, the config and the usage; says which event it reflects', () => {
    const stored = toStoredBuildState(happyPath().state, 12);
    for (const key of ['runId', 'status', 'stage', 'round', 'fixRound', 'criteria', 'haltReason', 'config', 'usage', 'counters', 'workspace']) {
      expect(stored).not.toHaveProperty(key);
    }
    expect(stored.event_seq).toBe(12);
    expect(stored.proposals.length).toBeGreaterThan(0);
  });

  it('a snapshot from a later event than the row says is refused, naming the run and both numbers', () => {
    const row = rowOf(happyPath().state, 30);
    expect(() => buildStateOf({ ...row, eventSeq: 29 }, emptyUsage())).toThrow(/run run1: its workflow_state reflects event 30 but the row's event_seq is 29/);
    // Behind is fine: the reconciler and the api append events without a step.
    expect(buildStateOf({ ...row, eventSeq: 31 }, emptyUsage()).proposals).toHaveLength(row.workflowState!.proposals ? (row.workflowState!.proposals as unknown[]).length : -1);
  });

  it('a run not started yet is the initial state; a started run without a snapshot is one to rebuild from its tables', () => {
    const config = testConfig();
    const initial = initialBuildState('run9', config);
    const row: BuildRunRow = { ...rowOf(initial, 0), workflowState: null };
    expect(buildStateOf(row, emptyUsage())).toEqual({ ...initial, openQuestions: [], fileReads: [], counters: { call: 0 } });
    expect(buildSnapshotMissing(row)).toBe(false);
    expect(buildSnapshotMissing({ ...row, status: 'running' })).toBe(true);
    expect(buildSnapshotMissing({ ...row, status: 'running', workflowState: {} })).toBe(false);
  });
});
