import { PanelSections } from '../components/panel-sections';
import type { CapName } from '../lib/act-requests';
import type { PanelRecords } from '../lib/api-types';
import { panelCompareRows } from './panel-compare';
import { RESUMABLE_BY_WORKFLOW } from './resumable-statuses';
import type { WebWorkflow } from './web-workflow';

/** The caps a panel counts: it has no build rounds or fix rounds. */
const PANEL_CAPS: readonly CapName[] = ['max_calls', 'max_tokens', 'max_cost_usd', 'max_seconds'];

/** The panel on the workbench: judges, debate, re-vote and appeal; a halted panel resumes where it stopped; no diff. */
export const panelWebWorkflow: WebWorkflow = {
  name: 'panel',
  tabs: [{ id: 'debate', label: 'Debate', Panel: ({ view, records }) => <PanelSections view={view} records={records as PanelRecords | null} /> }],
  hasDiff: false,
  caps: PANEL_CAPS,
  resume: { statuses: new Set(RESUMABLE_BY_WORKFLOW.panel), fromStages: null },
  appeal: true,
  forkEditsInputs: false,
  fork: true,
  judgesIdeas: true,
  compareRows: (run, records) => panelCompareRows(run, records as PanelRecords | null),
};
