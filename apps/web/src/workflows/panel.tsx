import { PanelSections } from '../components/panel-sections';
import type { CapName } from '../lib/act-requests';
import type { PanelRecords } from '../lib/api-types';
import type { WebWorkflow } from './web-workflow';

/** The caps a panel counts: it has no build rounds or fix rounds. */
const PANEL_CAPS: readonly CapName[] = ['max_calls', 'max_tokens', 'max_cost_usd', 'max_seconds'];

/**
 * The panel on the workbench: judges, debate, re-vote and appeal; no diff. No Resume: the api
 * refuses a panel's resume (409 run_not_resumable, apps/api/src/workflows/panel.ts); once it
 * accepts one, `resume: { statuses: RESUMABLE, fromStages: null }` here offers it.
 */
export const panelWebWorkflow: WebWorkflow = {
  Sections: ({ view, records }) => <PanelSections view={view} records={records?.workflow === 'panel' ? (records as PanelRecords) : null} />,
  hasDiff: false,
  caps: PANEL_CAPS,
  resume: null,
  appeal: true,
};
