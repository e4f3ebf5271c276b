import { z } from 'zod';
import type { DataSource } from 'typeorm';
import { type ExperimentDetail, type ExperimentList, ExperimentStatusName } from '@roundtable/contracts';
import { ExperimentEntity, ProjectEntity } from '@roundtable/persistence';
import { renderExperimentReport } from '@roundtable/workflow';
import { ApiError } from './api-error';
import { experimentDetail, experimentListItem, type ExperimentListRow, type ExperimentRunRow } from './experiment-detail';
import { editRefusal } from './experiment-locked';
import { parseQuery } from './query-params';
import type { TeamScope } from './team-scope';
import type { ReadDb } from './read-db';

/** The most GET /v1/experiments answers with; experiments are few (each is a person's preregistration). */
export const EXPERIMENT_LIST_LIMIT = 200;

/** `?project=` (the project's name), `?status=` and `?idea=` (those drafted from an idea's panel) on GET /v1/experiments. */
export const ExperimentListQuery = z
  .object({
    project: z.string({ error: 'project is a project name, given once' }).min(1).optional(),
    status: z.enum(ExperimentStatusName.options, { error: `status must be one of ${ExperimentStatusName.options.join(', ')} (given once)` }).optional(),
    idea: z.string({ error: 'idea is an idea id, given once' }).min(1).optional(),
  })
  .strict();

/**
 * What the experiments routes read: rows, replies, the report, and the refusal of every edit. A row,
 * its detail and its report are read from the primary (a POST answers with the detail of the row it
 * just wrote); the list from the read replica when there is one.
 */
export class ExperimentReads {
  constructor(private readonly db: ReadDb) {}

  /** Reads a write's reply may make: the primary, which has the row the write just made. */
  private get ds(): DataSource {
    return this.db.primary;
  }

  /** The row, or a 404 naming the id. */
  async row(id: string): Promise<ExperimentEntity> {
    const row = await this.ds.getRepository(ExperimentEntity).findOneBy({ id });
    if (!row) throw ApiError.notFound('experiment_not_found', `no experiment ${id}; GET /v1/experiments lists them`);
    return row;
  }

  async detail(id: string): Promise<ExperimentDetail> {
    const row = await this.row(id);
    const project = await this.ds.getRepository(ProjectEntity).findOneByOrFail({ id: row.projectId });
    // Its runs are the runs whose config names it: the run row is written with experiment_id by startRun.
    const runs: ExperimentRunRow[] = await this.ds.query(
      `SELECT id, status, stage, created_at FROM runs WHERE config ->> 'experiment_id' = $1 ORDER BY created_at DESC, id DESC`,
      [id],
    );
    return experimentDetail(row, project.name, runs);
  }

  /** Newest first, the caller's team's only (`sees`; null: every team's). */
  async list(query: unknown, sees: TeamScope): Promise<ExperimentList> {
    const q = parseQuery(ExperimentListQuery, query);
    // Replica: a list may be a moment old; an experiment drafted this instant shows at the next refresh.
    const rows: ExperimentListRow[] = await this.db.lagging.query(
      `SELECT e.id, p.name AS project, e.prereg, e.status, e.decision, e.run_id, e.created_at
         FROM experiments e JOIN projects p ON p.id = e.project_id
        WHERE ($1::text IS NULL OR p.name = $1) AND ($2::text IS NULL OR e.status = $2) AND ($4::text IS NULL OR e.source ->> 'idea_id' = $4)
          AND ($5::text IS NULL OR e.team = $5)
        ORDER BY e.created_at DESC, e.id DESC
        LIMIT $3`,
      [q.project ?? null, q.status ?? null, EXPERIMENT_LIST_LIMIT, q.idea ?? null, sees],
    );
    return { items: rows.map(experimentListItem) };
  }

  /** GET /v1/experiments/:id/report: the markdown record (libs/workflow renderExperimentReport). */
  async report(id: string): Promise<string> {
    return renderExperimentReport(await this.detail(id));
  }

  /** PATCH and PUT: never an edit, always the 409 that says why and names the field the body would change. */
  async refuseEdit(id: string, body: unknown): Promise<never> {
    const row = await this.row(id);
    const project = await this.ds.getRepository(ProjectEntity).findOneByOrFail({ id: row.projectId });
    throw editRefusal(row, project.config, body);
  }
}
