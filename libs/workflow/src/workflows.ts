import { PanelStage, Stage, type RunStage, type RunStatus } from '@roundtable/contracts';
import { BUILD_RESUMABLE } from './build/resume';
import { PANEL_RESUMABLE } from './panel/resume';

/**
 * The registry of workflows: what every service may ask of a workflow without naming it. The
 * apps (the api, the CLI, the web) ask through here or their own registries beside it, and
 * only registries name workflows (a lint rule holds the apps to it).
 */
export interface WorkflowModule {
  name: string;
  /** Every stage a run of it may stand in (a resume's `from` must be one). */
  stages: readonly RunStage[];
  /** The statuses its run may be resumed from: the api accepts a resume exactly there, and the clients offer one. */
  resumable: readonly RunStatus[];
}

export const WORKFLOWS = {
  build: { name: 'build', stages: Stage.options, resumable: BUILD_RESUMABLE },
  panel: { name: 'panel', stages: PanelStage.options, resumable: PANEL_RESUMABLE },
} as const satisfies Record<string, WorkflowModule>;

export type WorkflowName = keyof typeof WORKFLOWS;

/** The module of the run row's `workflow`; throws naming the known ones for a name no registry has. */
export function workflowModule(name: string): WorkflowModule {
  const found = (WORKFLOWS as Record<string, WorkflowModule>)[name];
  if (!found) throw new Error(`no workflow named "${name}" (known: ${Object.keys(WORKFLOWS).join(', ')})`);
  return found;
}
