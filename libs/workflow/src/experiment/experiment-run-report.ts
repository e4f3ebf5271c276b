import type { ExperimentDetail } from '@roundtable/contracts';
import { auditFigures, haltLines, recordLine, type ReportAudit } from '../report';
import { decisionOf } from './experiment-step';
import { renderExperimentReport } from './experiment-report';
import type { ExperimentDecisionRow, ExperimentRunState } from './experiment-types';
import { EXPERIMENT_RESUMABLE } from './resume';

export interface ExperimentReportInput {
  state: ExperimentRunState;
  decisions: ExperimentDecisionRow[];
  audit: ReportAudit;
}

/** The experiment as this run saw it: the record GET /v1/experiments/:id/report renders, from the run's own state. */
function detailOfRun(state: ExperimentRunState): ExperimentDetail {
  const prereg = state.preregistration;
  return {
    id: state.config.experiment_id,
    project: state.config.project,
    title: prereg?.title ?? state.draft?.body.title ?? null,
    status: state.outcome ? 'decided' : prereg ? 'locked' : 'draft',
    hypothesis_id: state.config.hypothesis_id ?? null,
    repo: state.config.repo,
    commit: state.result?.commit ?? state.config.commit ?? null,
    preregistration: prereg,
    prereg_hash: state.result?.prereg_hash ?? null,
    locked_at: null,
    source: null,
    run_id: state.runId,
    runs: [],
    result: state.result,
    decision: decisionOf(state),
    interpretation: state.outcome,
    interpreted_at: null,
    created_by: null,
    created_at: '',
  };
}

/**
 * GET /v1/runs/:id/report for an experiment run: the experiment's record (experiment-report.ts)
 * as the run left it, then how the run went — its halts and how to resume — and its audit.
 */
export function renderExperimentRunReport(input: ExperimentReportInput): string {
  const { state, decisions, audit } = input;
  const record = renderExperimentReport(detailOfRun(state)).trimEnd();
  const run = [
    `## This run (${state.runId})`,
    `Status: ${state.status}${state.haltReason ? ` — ${state.haltReason}` : ''}.`,
    ...haltLines(state.runId, state.status, decisions, EXPERIMENT_RESUMABLE),
    '',
    '## Audit',
    `${auditFigures(audit)}.`,
    `\`roundtable calls ${state.runId}\` for prompts, responses, tokens, cost.`,
    ...recordLine(state.runId, audit),
  ];
  return `${record}\n\n${run.join('\n')}\n`;
}
