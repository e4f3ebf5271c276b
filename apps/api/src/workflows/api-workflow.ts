import type { JudgeRole, ModeratorSynthesis, PanelSummary, RunRecords } from '@roundtable/contracts';
import type { DecisionEntity, RunEntity } from '@roundtable/persistence';
import type { ReportAudit, WorkflowModule } from '@roundtable/workflow';

/** What a workflow's report is written from: the run row, its decisions in order, and its calls' audit. */
export interface ReportInput {
  run: RunEntity;
  decisions: readonly DecisionEntity[];
  audit: ReportAudit;
}

/**
 * Everything the api does differently for one workflow, so that a service asks its run's
 * workflow (apiWorkflowOf) instead of comparing the run's `workflow` column with a name.
 */
export interface ApiWorkflow {
  /** GET /v1/runs/:id/records: the run's snapshot as its page shows it. */
  records(run: RunEntity): RunRecords;
  /** What GET /v1/runs/:id adds to the run's detail (the panel's `panel` block); {} when nothing. */
  detail(run: RunEntity): { panel?: PanelSummary; solved?: { check: string; ok: boolean; evidence: string }[] };
  /** GET /v1/runs/:id/report: the run as markdown. */
  report(input: ReportInput): string;
  /**
   * GET /v1/runs/:id/diff and /files: null for a workflow that writes files into a workspace;
   * otherwise why it has none, for the 409 (e.g. 'a panel changes no files').
   */
  noFiles: string | null;
  /** POST /v1/runs/:id/fork: null when a run of it may be forked; otherwise why not, for the 409. */
  noFork: string | null;
  /** The workflow's module (libs/workflow): the statuses a resume is accepted on and the stages it may name. */
  module: WorkflowModule;
  /** A project file of this workflow may name an idea worksheet version (`idea_ref`) for the idea it judges; its runs' appeals may cite the idea's ledger. */
  judgesIdeas: boolean;
  /**
   * A run that judged an idea: its moderator's synthesis (and whether it is a partial one written
   * after a halt) and the judges' final scores — what the idea's memory keeps and what a handoff
   * (POST /v1/ideas/:id/handoff) turns into a build; null while it has none, or for a workflow that
   * judges no idea.
   */
  verdictOf(run: RunEntity): { synthesis: ModeratorSynthesis; partial: boolean; scores: Partial<Record<JudgeRole, number>> } | null;
  /** POST /v1/runs/:id/appeal is for this workflow's runs. */
  appealable: boolean;
  /** What GET /v1/runs/:id/calls' `role` and `stage` filters accept for this workflow's runs. */
  callFilters: { role: readonly string[]; stage: readonly string[] };
}
