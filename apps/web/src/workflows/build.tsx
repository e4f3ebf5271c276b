import { BuildDiffTests, BuildProposals } from '../components/build-sections';
import { CAP_FIELDS } from '../lib/act-requests';
import type { BuildRecords } from '../lib/api-types';
import { buildCompareRows } from './build-compare';
import { RESUMABLE_BY_WORKFLOW } from './resumable-statuses';
import type { WebWorkflow } from './web-workflow';

/** The build's stages a resume may restart from (contracts' Stage, restated: no zod in the browser). */
const RESUME_STAGES = ['PROPOSE', 'CRITIQUE', 'REVISE', 'IMPLEMENT', 'TEST', 'FIX', 'REVIEW', 'SYNTHESIZE'];

/** The build on the workbench: its records (Proposals) and diff (Diff & tests), every cap, a resume from a chosen stage. */
export const buildWebWorkflow: WebWorkflow = {
  name: 'build',
  tabs: [
    { id: 'proposals', label: 'Proposals', Panel: ({ view, records }) => <BuildProposals view={view} records={records as BuildRecords | null} /> },
    { id: 'diff', label: 'Diff & tests', Panel: ({ view, records, runId, diff }) => <BuildDiffTests view={view} records={records as BuildRecords | null} runId={runId} diff={diff} /> },
  ],
  hasDiff: true,
  caps: CAP_FIELDS.map((f) => f.name),
  resume: { statuses: new Set(RESUMABLE_BY_WORKFLOW.build), fromStages: RESUME_STAGES },
  appeal: false,
  forkEditsInputs: true,
  fork: true,
  judgesIdeas: false,
  compareRows: (run, records) => buildCompareRows(run, records as BuildRecords | null),
};
