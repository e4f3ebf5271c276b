import type { RunView } from './run-view';

/** What the folded view keeps for one workflow beyond what every run has. */
interface WorkflowView {
  /** The view has a `panel` part (judges, debate, re-vote, appeal), opened at run_created. */
  panelView: boolean;
}

/**
 * run-view's workflow registry, by run_created's `workflow`: the one place in libs/run-view that
 * names workflows (the lint rule in eslint.config.mjs holds the rest of it, and of apps/, to
 * that). Zod-free like the rest of the library, so the workbench can load it.
 */
const WORKFLOW_VIEWS: Readonly<Record<string, WorkflowView>> = {
  build: { panelView: false },
  panel: { panelView: true },
  experiment: { panelView: false },
};

const viewOf = (workflow: string | null | undefined): WorkflowView | undefined =>
  workflow && Object.hasOwn(WORKFLOW_VIEWS, workflow) ? WORKFLOW_VIEWS[workflow] : undefined;

/** The workflow's runs fold into a `panel` part (false for a workflow this version does not know). */
export function hasPanelView(workflow: string | null | undefined): boolean {
  return viewOf(workflow)?.panelView ?? false;
}

/**
 * The run's workflow as far as the view knows it: run_created's, or, for a view folded from
 * `?after=` that never saw run_created, the workflow whose events opened a `panel` part.
 */
export function workflowOfView(view: Pick<RunView, 'workflow' | 'panel'>): string | null {
  if (view.workflow !== null) return view.workflow;
  if (view.panel === null) return null;
  return Object.keys(WORKFLOW_VIEWS).find((w) => WORKFLOW_VIEWS[w].panelView) ?? null;
}
