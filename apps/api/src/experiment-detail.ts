import type { ExperimentDetail, ExperimentList } from '@roundtable/contracts';
import type { ExperimentEntity } from '@roundtable/persistence';

/** One of an experiment's runs, as GET /v1/experiments/:id lists them (newest first). */
export interface ExperimentRunRow {
  id: string;
  status: string;
  stage: string;
  created_at: Date;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** A preregistration's title; a draft has none until its preregistration is approved. */
function titleOf(prereg: Record<string, unknown> | null): string | null {
  return typeof prereg?.title === 'string' ? prereg.title : null;
}

/**
 * The row as the api answers it (ExperimentDetail). The jsonb columns were written by this api and
 * the orchestrator from the same schemas, so they are passed on as they are; the reply's schema
 * is what a test parses them with.
 */
export function experimentDetail(row: ExperimentEntity, project: string, runs: ExperimentRunRow[]): ExperimentDetail {
  return {
    id: row.id,
    project,
    title: titleOf(row.prereg),
    status: row.status,
    hypothesis_id: row.hypothesisId,
    repo: row.repo,
    commit: row.commit,
    preregistration: row.prereg as ExperimentDetail['preregistration'],
    prereg_hash: row.preregHash,
    locked_at: iso(row.lockedAt),
    source: row.source as ExperimentDetail['source'],
    run_id: row.runId,
    runs: runs.map((r) => ({ id: r.id, status: r.status, stage: r.stage, created_at: r.created_at.toISOString() })),
    result: row.result as ExperimentDetail['result'],
    decision: row.decision as ExperimentDetail['decision'],
    interpretation: row.interpretation as ExperimentDetail['interpretation'],
    interpreted_at: iso(row.interpretedAt),
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
  };
}

/** A list row as the SQL of ExperimentsService.list reads it. */
export interface ExperimentListRow {
  id: string;
  project: string;
  prereg: Record<string, unknown> | null;
  status: ExperimentEntity['status'];
  decision: string | null;
  run_id: string | null;
  created_at: Date;
}

export function experimentListItem(r: ExperimentListRow): ExperimentList['items'][number] {
  return {
    id: r.id,
    project: r.project,
    title: titleOf(r.prereg),
    status: r.status,
    decision: r.decision as ExperimentList['items'][number]['decision'],
    run_id: r.run_id,
    created_at: r.created_at.toISOString(),
  };
}
