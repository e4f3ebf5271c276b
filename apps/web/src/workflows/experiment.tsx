import { ExperimentSections } from '../components/experiment-sections';
import type { CapName } from '../lib/act-requests';
import type { ExperimentRecords } from '../lib/api-types';
import { RESUMABLE_BY_WORKFLOW } from './resumable-statuses';
import type { WebWorkflow } from './web-workflow';

/** The caps an experiment counts: a handful of calls and the method's time; it has no build rounds or fix rounds. */
const EXPERIMENT_CAPS: readonly CapName[] = ['max_calls', 'max_tokens', 'max_cost_usd', 'max_seconds'];

/**
 * The experiment on the workbench (issue 24): its preregistration (or the draft at the
 * preregistration gate), the method and what it measured, the criteria, the decision code made
 * and the critic's review, on one tab; a halted experiment resumes where it stopped; no diff.
 */
export const experimentWebWorkflow: WebWorkflow = {
  name: 'experiment',
  tabs: [{ id: 'experiment', label: 'Experiment', Panel: ({ view, records }) => <ExperimentSections view={view} records={records as ExperimentRecords | null} /> }],
  hasDiff: false,
  caps: EXPERIMENT_CAPS,
  resume: { statuses: new Set(RESUMABLE_BY_WORKFLOW.experiment), fromStages: null },
  appeal: false,
  forkEditsInputs: false,
  fork: false,
  judgesIdeas: false,
};
