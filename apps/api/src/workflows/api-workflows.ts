import { ApiError } from '../api-error';
import type { ApiWorkflow } from './api-workflow';
import { buildApiWorkflow } from './build';
import { experimentApiWorkflow } from './experiment';
import { panelApiWorkflow } from './panel';

export type { ApiWorkflow, ReportInput } from './api-workflow';

/**
 * The api's workflow registry, by the run row's `workflow` column: the one place in the api
 * that names workflows (the lint rule in eslint.config.mjs holds the rest of apps/api to it).
 * A new workflow is one file next to this one and one line here.
 */
const API_WORKFLOWS: Readonly<Record<string, ApiWorkflow>> = {
  build: buildApiWorkflow,
  panel: panelApiWorkflow,
  experiment: experimentApiWorkflow,
};

/** The workflows a run can be (runs.workflow), in the order lists and messages name them. */
export const WORKFLOW_NAMES: readonly string[] = Object.keys(API_WORKFLOWS);

/** The workflow of that name, or undefined (a run written by a newer version). */
export function findApiWorkflow(name: string): ApiWorkflow | undefined {
  return Object.hasOwn(API_WORKFLOWS, name) ? API_WORKFLOWS[name] : undefined;
}

/** The run's workflow; a name this api does not know is a 409 that says so, not a 500 further on. */
export function apiWorkflowOf(run: { id: string; workflow: string }): ApiWorkflow {
  const workflow = findApiWorkflow(run.workflow);
  if (workflow) return workflow;
  throw new ApiError(409, {
    error: 'unknown_workflow',
    message: `run ${run.id} is a ${run.workflow} run, which this api version cannot read (it knows ${WORKFLOW_NAMES.join(', ')})`,
  });
}
