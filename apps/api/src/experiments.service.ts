import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import {
  type ExperimentProjectConfig,
  type ExperimentRunConfig,
  type ExperimentSource,
  loadExperimentConfig,
  type OperatorPolicy,
  ProjectConfigError,
  TERMINAL_RUN_STATUSES,
} from '@roundtable/contracts';
import { ExperimentEntity, HypothesisEntity, preregistrationHash, ProjectEntity } from '@roundtable/persistence';
import { ApiError } from './api-error';
import { YAML_CONTENT_TYPES } from './body-parsers';
import { cassetteUnderRoots } from './cassette-roots';
import { submissionIssues } from './config-paths.check';
import { resolvePinnedCommit } from './experiment-commit';
import type { ExperimentReads } from './experiment-reads';
import type { ProviderAvailabilityCheck } from './provider-availability.check';
import { newId, type RunSubmissionService } from './run-submission.service';
import { unstorableTextIssues } from './storable-text.check';
import type { Submitter } from './team-scope';

const invalid = (issues: { path: string; message: string }[]) => ApiError.badRequest('invalid_project_config', new ProjectConfigError(issues).message, { issues });
const conflict = (error: string, message: string, extra: Record<string, unknown> = {}) => new ApiError(409, { error, message, ...extra });

/** What a new experiment is: its id, and its run when it is a draft (started at once, to draft its preregistration). */
export interface CreatedExperiment {
  id: string;
  runId: string | null;
}

/**
 * Experiments (issue 24): a preregistration validated, hashed and LOCKED before any result exists,
 * pinned to the commit it was written against; or a draft whose run drafts one for a person to
 * approve at its gate. The file is a request like a project file: the same loader rules, the
 * operator's policy, the paths on this machine and the providers' workers judge it before anything
 * is written. A run of an experiment is a run of workflow `experiment` (RunSubmissionService.startRun).
 */
export class ExperimentsService {
  constructor(
    private readonly ds: DataSource,
    private readonly submission: RunSubmissionService,
    private readonly reads: ExperimentReads,
    private readonly policy: OperatorPolicy,
    private readonly providers: ProviderAvailabilityCheck,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  /** POST /v1/experiments: a locked experiment, or a draft with its run started. */
  async create(body: unknown, { name: createdBy, team }: Submitter, source: ExperimentSource | null = null): Promise<CreatedExperiment> {
    const config = await this.validate(body);
    const pinned = await resolvePinnedCommit(config.repo, config.commit);
    if (config.hypothesis_id && !(await this.ds.getRepository(HypothesisEntity).existsBy({ id: config.hypothesis_id }))) {
      throw invalid([{ path: 'hypothesis_id', message: `no hypothesis ${config.hypothesis_id}; leave hypothesis_id out or name one that exists` }]);
    }
    // The file as stored names the repository where it really is and the full commit it is pinned to.
    const file: ExperimentProjectConfig = { ...config, repo: pinned.repo, commit: pinned.commit };
    const id = newId('exp');
    const row = (projectId: string, runId: string | null): QueryDeepPartialEntity<ExperimentEntity> => ({
      id,
      projectId,
      hypothesisId: config.hypothesis_id ?? null,
      status: file.preregistration ? 'locked' : 'draft',
      prereg: (file.preregistration ?? null) as QueryDeepPartialEntity<ExperimentEntity>['prereg'],
      preregHash: file.preregistration ? preregistrationHash(file.preregistration) : null,
      lockedAt: file.preregistration ? new Date() : null,
      repo: pinned.repo,
      commit: pinned.commit,
      source: source as QueryDeepPartialEntity<ExperimentEntity>['source'],
      runId,
      createdBy,
      team,
    });
    if (!file.preregistration) {
      const run = await this.submission.startRun({ ...file, experiment_id: id, source }, { submittedBy: createdBy, team, alongside: (em, ids) => em.insert(ExperimentEntity, row(ids.projectId, ids.runId)).then(() => undefined) });
      return { id, runId: run.id };
    }
    await this.ds.transaction(async (em) => {
      const projectId = newId('prj');
      await em.insert(ProjectEntity, { id: projectId, name: file.project, objective: file.preregistration!.hypothesis, requirements: [], config: file } as QueryDeepPartialEntity<ProjectEntity>);
      await em.insert(ExperimentEntity, row(projectId, null));
    });
    return { id, runId: null };
  }

  /**
   * POST /v1/experiments/:id/run: refused for a draft or a rejected experiment, one with a result
   * (a second run could only be a second look at the same question), one whose stored plan no
   * longer hashes to its lock, and one with a run still live; else its run is started. The run
   * belongs to the experiment's team (an admin running another team's experiment runs it for them).
   */
  async run(id: string, { name: submittedBy }: Submitter): Promise<{ experiment_id: string; run_id: string }> {
    const row = await this.reads.row(id);
    if (row.status === 'draft' || row.status === 'rejected' || !row.prereg || !row.preregHash) {
      throw conflict('experiment_not_locked', `experiment ${id} is ${row.status === 'rejected' ? 'rejected' : 'a draft'}: only a locked preregistration runs${row.status === 'draft' && row.runId ? `; approve its draft at POST /v1/runs/${row.runId}/approvals (gate "preregistration")` : ''}`);
    }
    if (row.result) {
      throw conflict('experiment_has_result', `experiment ${id} already has a result (decision ${row.decision ?? 'not yet interpreted'}); a second run is refused — a changed copy is a new experiment (POST /v1/experiments)`);
    }
    const hash = preregistrationHash(row.prereg);
    if (hash !== row.preregHash) {
      throw conflict('experiment_altered', `the stored preregistration of ${id} no longer matches its locked hash (${row.preregHash.slice(0, 12)}…, now ${hash.slice(0, 12)}…): it was altered after it was locked; refused`);
    }
    const project = await this.ds.getRepository(ProjectEntity).findOneByOrFail({ id: row.projectId });
    const { draft_from: _d, proposer: _p, ...file } = project.config as ExperimentProjectConfig;
    const config: ExperimentRunConfig = { ...file, preregistration: row.prereg as ExperimentProjectConfig['preregistration'], repo: row.repo ?? file.repo, commit: row.commit ?? file.commit, experiment_id: id, source: (row.source as ExperimentRunConfig['source']) ?? null };
    const served = await this.providers.check(config, false);
    if (served.issues.length) throw invalid(served.issues);
    const run = await this.submission.startRun(config, { projectId: row.projectId, submittedBy, team: row.team, alongside: (em, ids) => this.claimRun(em, id, ids.runId) });
    return { experiment_id: id, run_id: run.id };
  }

  /** In the run's transaction: the experiment's row locked, no other run of it live, then its run_id set (two concurrent POSTs start one run). */
  private async claimRun(em: EntityManager, id: string, runId: string): Promise<void> {
    await em.query(`SELECT id FROM experiments WHERE id = $1 FOR UPDATE`, [id]);
    const live: { id: string; status: string }[] = await em.query(
      `SELECT id, status FROM runs WHERE config ->> 'experiment_id' = $1 AND status <> ALL($2::text[]) ORDER BY created_at DESC LIMIT 1`,
      [id, [...TERMINAL_RUN_STATUSES]],
    );
    if (live.length) throw conflict('experiment_run_live', `experiment ${id} has a run still live (${live[0].id}, ${live[0].status}); wait for it to finish, or cancel it, before running again`, { run_id: live[0].id });
    await em.update(ExperimentEntity, { id }, { runId });
  }

  /** The file as the runs submit validates one: `${VAR}` refused, cassettes under the policy's roots, storable text, the policy and the paths, the providers' workers. */
  private async validate(body: unknown): Promise<ExperimentProjectConfig> {
    if (body === undefined || body === null || (typeof body !== 'string' && typeof body !== 'object')) {
      throw new ApiError(415, { error: 'unsupported_media_type', message: `send the experiment file as application/json or as YAML text (${YAML_CONTENT_TYPES.join(', ')})` });
    }
    let config: ExperimentProjectConfig;
    try {
      config = loadExperimentConfig(body, { env: this.env, variables: 'refuse', resolveCassette: cassetteUnderRoots(this.policy.cassettes.roots) });
    } catch (e) {
      if (e instanceof ProjectConfigError) throw invalid(e.issues);
      throw e;
    }
    const issues = [...unstorableTextIssues(config), ...(await submissionIssues(config, this.policy))];
    if (issues.length) throw invalid(issues);
    const served = await this.providers.check(config, false);
    if (served.issues.length) throw invalid(served.issues);
    return config;
  }
}
