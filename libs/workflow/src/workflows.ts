import { ExperimentStage, PanelStage, Stage, type RunStage, type RunStatus, type WorkflowGraph } from '@roundtable/contracts';
import { BUILD_GRAPH } from './build/build-graph';
import { EXPERIMENT_GRAPH } from './experiment/experiment-graph';
import { experimentStateOf, toStoredExperimentState } from './experiment/experiment-stored-state';
import { renderExperimentRunReport } from './experiment/experiment-run-report';
import { decideExperimentRun } from './experiment/experiment.workflow';
import { EXPERIMENT_RESUMABLE } from './experiment/resume';
import { PANEL_GRAPH } from './panel/panel-graph';
import { buildStateOf, toStoredBuildState } from './build/build-stored-state';
import { decide } from './build/build.workflow';
import { BUILD_RESUMABLE } from './build/resume';
import { panelStateOf, toStoredPanelState } from './panel/panel-stored-state';
import { renderPanelReport } from './panel/panel-report';
import { decidePanel } from './panel/panel.workflow';
import { PANEL_RESUMABLE } from './panel/resume';
import { renderBuildReport } from './report';

/**
 * The registry of workflows: each one module of this library, what every service may ask of a
 * workflow without naming it. The orchestrator binds `decide` and the stored state to its job
 * table, the api `report` and the resume rules to its routes; only registries (this one and each
 * app's beside it) name workflows, and a lint rule holds the apps to it.
 */
export interface WorkflowModule {
  name: string;
  /** Every stage a run of it may stand in (a resume's `from` must be one). */
  stages: readonly RunStage[];
  /** Its shape for the run page's stage graph: stages, gates, loops and their caps (GET /v1/workflows). */
  graph: WorkflowGraph;
  /** The statuses its run may be resumed from: the api accepts a resume exactly there, and the clients offer one. */
  resumable: readonly RunStatus[];
  /** decide(state, event, ctx) → the step's result: the workflow's rules on the engine (src/engine/). */
  decide(state: never, event: never, ctx: never): unknown;
  /** Its state from the run row's snapshot and the usage read with it, and the snapshot a step leaves. */
  stateOf(run: never, usage: never): unknown;
  toStored(state: never, eventSeq: number): unknown;
  /** The run as markdown (GET /v1/runs/:id/report). */
  report(input: never): string;
}

export const WORKFLOWS = {
  build: {
    name: 'build',
    stages: Stage.options,
    graph: BUILD_GRAPH,
    resumable: BUILD_RESUMABLE,
    decide,
    stateOf: buildStateOf,
    toStored: toStoredBuildState,
    report: renderBuildReport,
  },
  panel: {
    name: 'panel',
    stages: PanelStage.options,
    graph: PANEL_GRAPH,
    resumable: PANEL_RESUMABLE,
    decide: decidePanel,
    stateOf: panelStateOf,
    // The panel's snapshot carries no sequence of its own: the orchestrator versions it (engine/state-snapshot.ts).
    toStored: toStoredPanelState,
    report: renderPanelReport,
  },
  experiment: {
    name: 'experiment',
    stages: ExperimentStage.options,
    graph: EXPERIMENT_GRAPH,
    resumable: EXPERIMENT_RESUMABLE,
    decide: decideExperimentRun,
    stateOf: experimentStateOf,
    // Like the panel's, its snapshot is versioned by the orchestrator (engine/state-snapshot.ts).
    toStored: toStoredExperimentState,
    report: renderExperimentRunReport,
  },
} as const satisfies Record<string, WorkflowModule>;

export type WorkflowName = keyof typeof WORKFLOWS;

/** The module of the run row's `workflow`; throws naming the known ones for a name no registry has. */
export function workflowModule(name: string): WorkflowModule {
  const found = Object.prototype.hasOwnProperty.call(WORKFLOWS, name) ? (WORKFLOWS as Record<string, WorkflowModule>)[name] : undefined;
  if (!found) throw new Error(`no workflow named "${name}" (known: ${Object.keys(WORKFLOWS).join(', ')})`);
  return found;
}
