import { randomBytes } from 'node:crypto';
import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  CreateIdeaRequest,
  EditIdeaRequest,
  type EvidenceEntry,
  type IdeaDetail,
  type IdeaDiff,
  type IdeaHandoff,
  type IdeaInput,
  type IdeaListItem,
  type IdeaRef,
  type IdeaSummary,
  type IdeaVersion,
  type IdeaVersionDetail,
  LogEvidenceRequest,
  Worksheet,
} from '@roundtable/contracts';
import { EvidenceEntryEntity, IdeaEntity, IdeaVersionEntity } from '@roundtable/persistence';
import { applyEdit, evidenceText, ideaOfWorksheet, readinessIssues, readinessOf, worksheetDiff } from '@roundtable/workflow';
import type { z } from 'zod';
import { ApiError } from './api-error';
import { ideaMemory } from './idea-memory';
import { similarIdeaIds } from './similar-ideas';
import { unstorableTextIssues } from './storable-text.check';
import { mayReach, type Submitter, type TeamScope } from './team-scope';
import { ideaNotFound } from './team-owned';
import { ReadDb } from './read-db';

type Issue = { path: string; message: string };

const newIdeaId = (): string => `idea_${randomBytes(5).toString('hex')}`;

/** A body parsed by `schema`, or one 400 naming every field that is wrong (and any text Postgres cannot store). */
function parsed<S extends z.ZodType>(schema: S, body: unknown, error: string): z.infer<S> {
  const r = schema.safeParse(body ?? undefined);
  const issues: Issue[] = r.success ? unstorableTextIssues(r.data) : r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  if (r.success && !issues.length) return r.data;
  throw ApiError.badRequest(error, issues.map((i) => (i.path && !i.message.startsWith(i.path.split('.')[0]) ? `${i.path}: ${i.message}` : i.message)).join('; '), { issues });
}

/** `n` from a path or query: a version number, else a 400 naming the parameter. */
export function versionParam(name: string, raw: unknown): number {
  const n = typeof raw === 'string' && /^[1-9][0-9]{0,8}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n)) throw ApiError.badRequest('invalid_version', `${name} must be a version number (1, 2, …), not ${JSON.stringify(raw ?? null)}`, { issues: [{ path: name, message: 'a version number from 1' }] });
  return n;
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

/**
 * Ideas as versioned worksheets with an evidence ledger (issue 23). Versions are copy-on-write: a
 * version row is written once, and an edit is always a new version laid over its base; a version a
 * panel has scored is locked (the run that locked it is on the row), and an edit aimed at it is a
 * 409 that names both. The ledger is append-only: entries are numbered E1, E2 … per idea under the
 * idea's row lock, and a correction is a new entry that supersedes one. Every route takes data
 * only: nothing here reaches a path, a process or a URL.
 */
export class IdeasService {
  constructor(
    private readonly ds: DataSource,
    /** GET /v1/ideas's plain list reads from its replica (when there is one); everything else here, the primary. */
    private readonly reads: ReadDb = new ReadDb(ds),
  ) {}

  async create(body: unknown, { name: by, team }: Submitter): Promise<IdeaDetail> {
    const worksheet = Worksheet.parse(parsed(CreateIdeaRequest, body, 'invalid_idea'));
    // A new idea has an empty ledger: any cited id is unknown.
    this.refuseUnknownCitations(worksheet, new Set());
    const id = newIdeaId();
    await this.ds.transaction(async (em) => {
      await em.insert(IdeaEntity, { id, title: worksheet.title, latestVersion: 1, createdBy: by, team });
      await em.insert(IdeaVersionEntity, { ideaId: id, version: 1, worksheet, createdBy: by });
    });
    return this.detail(id);
  }

  /**
   * Newest first; with `similarTo`, the ideas most like that one (its worksheets and panel
   * summaries), best first. Only the ideas of the team the caller sees (`sees`; null: every team);
   * another team's `similarTo` is a 404 as a missing one is.
   */
  async list(similarTo: unknown, sees: TeamScope): Promise<IdeaListItem[]> {
    const team = sees === null ? {} : { team: sees };
    if (similarTo !== undefined) {
      if (typeof similarTo !== 'string' || !similarTo) throw ApiError.badRequest('invalid_query', 'similar_to names an idea (idea_…)', { issues: [{ path: 'similar_to', message: 'an idea id' }] });
      if (!mayReach(sees, (await this.idea(similarTo)).team)) throw ideaNotFound(similarTo);
      const ids = await similarIdeaIds(this.ds, similarTo);
      const byId = new Map((ids.length ? await this.ds.getRepository(IdeaEntity).findBy({ id: In(ids), ...team }) : []).map((i) => [i.id, i]));
      return this.listItems(this.ds, ids.map((i) => byId.get(i)).filter((i): i is IdeaEntity => i !== undefined));
    }
    // Replica: a list may be a moment old (an idea created this instant shows at the next refresh). The
    // similar-ideas ranking above stays on the primary: it starts from an idea the caller names, maybe just made.
    const ds = this.reads.lagging;
    return this.listItems(ds, await ds.getRepository(IdeaEntity).find({ where: team, order: { createdAt: 'DESC', id: 'DESC' }, take: 500 }));
  }

  /** The listed ideas with their locked versions and panel counts, in one grouped query (not a detail per idea). */
  private async listItems(ds: DataSource, ideas: IdeaEntity[]): Promise<IdeaListItem[]> {
    if (!ideas.length) return [];
    const rows: { id: string; locked: number[]; panels: number }[] = await ds.query(
      `SELECT i.id,
              coalesce((SELECT array_agg(v.version ORDER BY v.version) FROM idea_versions v WHERE v.idea_id = i.id AND v.locked_by_run IS NOT NULL), '{}') AS locked,
              (SELECT count(*)::int FROM runs r WHERE r.idea_id = i.id) AS panels
         FROM ideas i WHERE i.id = ANY($1::text[])`,
      [ideas.map((i) => i.id)],
    );
    const facts = new Map(rows.map((r) => [r.id, r]));
    return ideas.map((i) => ({ ...this.summary(i), locked_versions: facts.get(i.id)?.locked ?? [], panels: facts.get(i.id)?.panels ?? 0 }));
  }

  async detail(id: string): Promise<IdeaDetail> {
    const idea = await this.idea(id);
    const versions = await this.versionRows(id);
    const views = await this.views(id, versions);
    return {
      ...this.summary(idea),
      latest: views[views.length - 1],
      versions: views.map((v) => ({ version: v.version, locked: v.locked, panels: v.panels })),
      memory: await ideaMemory(this.ds, id),
      handoffs: await this.handoffs(id),
    };
  }

  async versions(id: string): Promise<IdeaVersion[]> {
    await this.idea(id);
    return this.views(id, await this.versionRows(id));
  }

  async version(id: string, n: number): Promise<IdeaVersionDetail> {
    await this.idea(id);
    const row = await this.versionRow(this.ds.manager, id, n);
    const [view] = await this.views(id, [row]);
    return { ...view, readiness: readinessOf(row.worksheet) };
  }

  /**
   * An edit: the changed fields over the base version (the body's `base_version`, the path's `n`
   * for PUT, else the latest) make the next version. A locked base is refused: the version a panel
   * scored stays as it was scored.
   */
  async edit(id: string, body: unknown, by: string, target?: number): Promise<IdeaVersionDetail> {
    const req = parsed(EditIdeaRequest, body, 'invalid_idea_edit');
    if (target !== undefined && req.base_version !== undefined && req.base_version !== target) {
      throw ApiError.badRequest('invalid_idea_edit', `base_version ${req.base_version} differs from the version in the path (${target}); send one`, { issues: [{ path: 'base_version', message: 'differs from the path' }] });
    }
    const { base_version: asked, ...changes } = req;
    const version = await this.ds.transaction(async (em) => {
      const idea = await this.lockIdea(em, id);
      const baseNumber = target ?? asked ?? idea.latestVersion;
      const base = await this.versionRow(em, id, baseNumber);
      // Copy-on-write: an edit of the latest is always a new version; one that names a locked version asks to change what a panel scored.
      if (base.lockedByRun && (target ?? asked) !== undefined) throw lockedError(id, base);
      const worksheet = applyEdit(base.worksheet, changes as Partial<Worksheet>);
      this.refuseUnknownCitations(worksheet, await this.ledgerIds(em, id));
      const next = idea.latestVersion + 1;
      await em.insert(IdeaVersionEntity, { ideaId: id, version: next, worksheet, createdBy: by });
      await em.update(IdeaEntity, { id }, { latestVersion: next, title: worksheet.title, updatedAt: new Date() });
      return next;
    });
    return this.version(id, version);
  }

  async diff(id: string, fromRaw: unknown, toRaw: unknown): Promise<IdeaDiff> {
    const from = versionParam('from', fromRaw);
    const to = versionParam('to', toRaw);
    await this.idea(id);
    const [a, b] = [await this.versionRow(this.ds.manager, id, from), await this.versionRow(this.ds.manager, id, to)];
    return worksheetDiff(id, { version: from, worksheet: a.worksheet }, { version: to, worksheet: b.worksheet });
  }

  async logEvidence(id: string, body: unknown, by: string): Promise<EvidenceEntry> {
    const req = parsed(LogEvidenceRequest, body, 'invalid_evidence');
    const entryId = await this.ds.transaction(async (em) => {
      const idea = await this.lockIdea(em, id);
      if (req.supersedes && !(await this.ledgerIds(em, id)).has(req.supersedes)) {
        throw ApiError.badRequest('unknown_evidence', `supersedes names ${req.supersedes}, which idea ${id}'s ledger does not hold`, { issues: [{ path: 'supersedes', message: `unknown entry ${req.supersedes}` }] });
      }
      const seq = idea.evidenceSeq + 1;
      const entry = `E${seq}`;
      await em.insert(EvidenceEntryEntity, { ideaId: id, entryId: entry, seq, claim: req.claim, source: req.source, kind: req.kind, date: req.date, supersedes: req.supersedes ?? null, loggedBy: by });
      await em.update(IdeaEntity, { id }, { evidenceSeq: seq, updatedAt: new Date() });
      return entry;
    });
    return (await this.evidence(id)).find((e) => e.id === entryId)!;
  }

  async evidence(id: string): Promise<EvidenceEntry[]> {
    await this.idea(id);
    const rows = await this.ds.getRepository(EvidenceEntryEntity).find({ where: { ideaId: id }, order: { seq: 'ASC' } });
    const supersededBy = new Map(rows.filter((r) => r.supersedes).map((r) => [r.supersedes!, r.entryId]));
    return rows.map((r) => ({
      id: r.entryId,
      idea_id: r.ideaId,
      claim: r.claim,
      source: r.source,
      kind: r.kind,
      date: r.date,
      supersedes: r.supersedes,
      superseded_by: supersededBy.get(r.entryId) ?? null,
      logged_by: r.loggedBy,
      logged_at: iso(r.loggedAt)!,
    }));
  }

  /**
   * `idea_ref` of a panel project file, resolved into the inline idea the panel takes: the
   * version must exist and be ready (every failing check named, nothing written otherwise), and
   * the idea be one of the teams the submitter sees (another team's reads as no idea at all).
   */
  async resolveRef(ref: IdeaRef, sees: TeamScope): Promise<IdeaInput> {
    const idea = await this.ds.getRepository(IdeaEntity).findOneBy({ id: ref.id });
    if (!idea || !mayReach(sees, idea.team)) throw ApiError.badRequest('invalid_project_config', `idea_ref.id: no idea ${ref.id}`, { issues: [{ path: 'idea_ref.id', message: `no idea ${ref.id}` }] });
    const row = await this.ds.getRepository(IdeaVersionEntity).findOneBy({ ideaId: ref.id, version: ref.version });
    if (!row) {
      const message = `idea ${ref.id} has no version ${ref.version} (its latest is ${idea.latestVersion})`;
      throw ApiError.badRequest('invalid_project_config', `idea_ref.version: ${message}`, { issues: [{ path: 'idea_ref.version', message }] });
    }
    const readiness = readinessOf(row.worksheet);
    if (!readiness.ready) {
      const issues = readinessIssues(readiness).map((i) => ({ ...i, path: `idea_ref.worksheet.${i.path}`.replace(/\.$/, '') }));
      throw ApiError.badRequest(
        'idea_not_ready',
        `idea ${ref.id} version ${ref.version} is not ready for a panel: ${issues.map((i) => `${i.check}: ${i.message}`).join('; ')}`,
        { issues, readiness },
      );
    }
    const entries = await this.ds.getRepository(EvidenceEntryEntity).findBy({ ideaId: ref.id });
    const judged = ideaOfWorksheet(row.worksheet, new Map(entries.map((e) => [e.entryId, { id: e.entryId, claim: e.claim, source: e.source }])));
    // What earlier panels on the idea concluded, as summaries: the judges can say what moved since.
    const memory = await ideaMemory(this.ds, ref.id);
    return memory.length ? { ...judged, earlier_panels: memory } : judged;
  }

  /** In the submission's transaction: the run's version is locked by it, unless an earlier panel locked it first. */
  async lockForRun(em: EntityManager, ref: IdeaRef, runId: string): Promise<void> {
    await this.lockIdea(em, ref.id);
    await em.query(`UPDATE idea_versions SET locked_by_run = $3, locked_at = now() WHERE idea_id = $1 AND version = $2 AND locked_by_run IS NULL`, [ref.id, ref.version, runId]);
  }

  /** Ledger entries as an appeal's evidence texts, in the order asked; an id the idea's ledger does not hold is a 400 naming it. */
  async evidenceTexts(ideaId: string, ids: readonly string[]): Promise<string[]> {
    const rows = await this.ds.getRepository(EvidenceEntryEntity).findBy({ ideaId });
    const byId = new Map(rows.map((r) => [r.entryId, r]));
    const unknown = ids.filter((i) => !byId.has(i));
    if (unknown.length) {
      throw ApiError.badRequest('invalid_appeal_request', `evidence_ids: idea ${ideaId}'s ledger holds no ${unknown.join(', ')}`, {
        issues: unknown.map((u) => ({ path: `evidence_ids.${ids.indexOf(u)}`, message: `unknown ledger entry ${u}` })),
      });
    }
    return [...new Set(ids)].map((i) => evidenceText({ id: i, claim: byId.get(i)!.claim, source: byId.get(i)!.source }));
  }

  private refuseUnknownCitations(w: Worksheet, known: ReadonlySet<string>): void {
    const issues = w.evidence.flatMap((e, i) => (known.has(e) ? [] : [{ path: `evidence.${i}`, message: `cites ${e}, which the idea's ledger does not hold: log it first (POST /v1/ideas/:id/evidence)` }]));
    if (issues.length) throw ApiError.badRequest('unknown_evidence', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues });
  }

  private summary(i: IdeaEntity): IdeaSummary {
    return { id: i.id, title: i.title, latest_version: i.latestVersion, created_by: i.createdBy, created_at: iso(i.createdAt)!, updated_at: iso(i.updatedAt)! };
  }

  private async idea(id: string): Promise<IdeaEntity> {
    const idea = await this.ds.getRepository(IdeaEntity).findOneBy({ id });
    if (!idea) throw ideaNotFound(id);
    return idea;
  }

  private async lockIdea(em: EntityManager, id: string): Promise<IdeaEntity> {
    const idea = await em.findOne(IdeaEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!idea) throw ideaNotFound(id);
    return idea;
  }

  private async versionRow(em: EntityManager, id: string, n: number): Promise<IdeaVersionEntity> {
    const row = await em.findOneBy(IdeaVersionEntity, { ideaId: id, version: n });
    if (!row) throw ApiError.notFound('version_not_found', `idea ${id} has no version ${n}`);
    return row;
  }

  private versionRows(id: string): Promise<IdeaVersionEntity[]> {
    return this.ds.getRepository(IdeaVersionEntity).find({ where: { ideaId: id }, order: { version: 'ASC' } });
  }

  private async ledgerIds(em: EntityManager, id: string): Promise<Set<string>> {
    const rows = await em.find(EvidenceEntryEntity, { select: { entryId: true }, where: { ideaId: id } });
    return new Set(rows.map((r) => r.entryId));
  }

  /** The builds handed on from this idea (POST /v1/ideas/:id/handoff), oldest first. */
  private async handoffs(id: string): Promise<IdeaHandoff[]> {
    const rows: { id: string; status: string; created_at: Date; from: Omit<IdeaHandoff, 'run_id' | 'status' | 'created_at'> }[] = await this.ds.query(
      `SELECT id, status, created_at, handed_off_from AS "from" FROM runs WHERE handed_off_from ->> 'idea_id' = $1 ORDER BY created_at, id`,
      [id],
    );
    return rows.map((r) => ({ run_id: r.id, status: r.status, created_at: iso(r.created_at)!, version: r.from.version, panel_run_id: r.from.panel_run_id, recommendation: r.from.recommendation }));
  }

  private async views(id: string, rows: IdeaVersionEntity[]): Promise<IdeaVersion[]> {
    const runs: { id: string; idea_version: number }[] = await this.ds.query(`SELECT id, idea_version FROM runs WHERE idea_id = $1 ORDER BY created_at, id`, [id]);
    return rows.map((r) => ({
      idea_id: id,
      version: r.version,
      worksheet: r.worksheet,
      created_by: r.createdBy,
      created_at: iso(r.createdAt)!,
      locked: r.lockedByRun ? { run_id: r.lockedByRun, locked_at: iso(r.lockedAt)! } : null,
      panels: runs.filter((p) => p.idea_version === r.version).map((p) => p.id),
    }));
  }
}

/** 409: the version a panel scored does not change; the message names it, the run, and what to do instead. */
function lockedError(ideaId: string, v: IdeaVersionEntity): ApiError {
  return new ApiError(409, {
    error: 'version_locked',
    message: `idea ${ideaId} version ${v.version} is locked: panel run ${v.lockedByRun} scored it, so it does not change; make a new version instead (POST /v1/ideas/${ideaId}/versions without base_version edits the latest)`,
    idea_id: ideaId,
    version: v.version,
    locked_by_run: v.lockedByRun,
  });
}
