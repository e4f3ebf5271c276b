import { addStatement } from '@roundtable/persistence';
import {
  versioned,
  type PanelEvent,
  type PanelFinishedCall,
  type PanelRunState,
  type PanelStepContext,
  type PanelStepResult,
  WORKFLOWS,
} from '@roundtable/workflow';
import { PanelStage } from '@roundtable/contracts';
import { usageOfRow } from '../../sql/run-usage.sql';
import { commonRunColumns } from '../../step-writer';
import { engineJobs } from '../engine-jobs';
import { IGNORED, type JobTable, type OrchestratedWorkflow } from '../workflow-definition';
import { UPDATE_SNAPSHOT_RUN_AFTER_STEP } from '../../sql/snapshot-run-after-step.sql';

/**
 * The panel's job → event mapping: the engine's jobs (engine-jobs.ts: start, cancel, a
 * finished call, resume, the reconciler's halt) and its one appeal. The build's workspace and
 * test jobs mean nothing to it.
 */
export const PANEL_JOBS: JobTable<PanelEvent> = {
  ...engineJobs<PanelFinishedCall, PanelStage>('panel', PanelStage.options),
  'run.appeal': {
    afterTheEnd: true,
    toEvent: ({ payload: p }) => ({ type: 'appeal', evidence: p.evidence, judges: p.judges, ...(p.caps ? { caps: p.caps } : {}) }),
  },
  'workspace.done': IGNORED,
  'tests.done': IGNORED,
};

/**
 * The panel as the orchestrator runs it: the state from the run row (workflow_state) and the
 * usage read with the lock (RUN_USAGE), the pure decidePanel(), and the run row. Verdicts, turns and
 * re-votes are in workflow_state and on their events; no other table holds them, so its
 * records add no rows.
 */
export const panelWorkflow: OrchestratedWorkflow<PanelRunState, PanelEvent, PanelStepResult, PanelStepContext> = {
  jobs: PANEL_JOBS,
  loadState: (run, stateRow, now) => WORKFLOWS.panel.stateOf(run, usageOfRow(stateRow, run, now)),
  decide: WORKFLOWS.panel.decide,
  async write(batch, { run, result, events, chain }) {
    const s = result.state;
    return addStatement(batch, UPDATE_SNAPSHOT_RUN_AFTER_STEP, run.id, {
      ...commonRunColumns(run, s, result, events, chain),
      workflowState: versioned(WORKFLOWS.panel.toStored(s), run.eventSeq + events),
    });
  },
};
