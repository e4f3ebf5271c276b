import { workflowOfView, type RunView } from '@roundtable/run-view';
import { buildWebWorkflow } from './build';
import { experimentWebWorkflow } from './experiment';
import { panelWebWorkflow } from './panel';
import type { WebWorkflow } from './web-workflow';

export type { SectionsProps, WebResume, WebTab, WebWorkflow } from './web-workflow';

/**
 * The workbench's workflow registry, by the run's `workflow`: the one place in apps/web that
 * names workflows (the lint rule in eslint.config.mjs holds the rest of apps/web to it). A new
 * workflow is one file next to this one and one line here.
 */
const WEB_WORKFLOWS: Readonly<Record<string, WebWorkflow>> = {
  build: buildWebWorkflow,
  panel: panelWebWorkflow,
  experiment: experimentWebWorkflow,
};

/** The workflows the runs list filters by, in the order it offers them. */
export const WORKFLOW_NAMES: readonly string[] = Object.keys(WEB_WORKFLOWS);

/** The workflow of that name, or undefined (not known yet, or one this version does not know). */
export function findWebWorkflow(name: string | null | undefined): WebWorkflow | undefined {
  return name && Object.hasOwn(WEB_WORKFLOWS, name) ? WEB_WORKFLOWS[name] : undefined;
}

/** The workflow of that name; one this workbench does not know is a clear error, not a blank page further on. */
export function webWorkflowOf(name: string): WebWorkflow {
  const workflow = findWebWorkflow(name);
  if (!workflow) throw new Error(`the workbench knows no workflow ${JSON.stringify(name)} (it knows ${WORKFLOW_NAMES.join(', ')})`);
  return workflow;
}

/** The run's workflow as its folded view knows it (run_created's, or the one its events show). */
export function workflowOfRun(view: Pick<RunView, 'workflow' | 'panel'>): WebWorkflow | undefined {
  return findWebWorkflow(workflowOfView(view));
}

/** Whether runs of that workflow judge an idea (the idea page's "Run a panel" copies an example of one). */
export const judgesIdeas = (name: string): boolean => findWebWorkflow(name)?.judgesIdeas ?? false;
