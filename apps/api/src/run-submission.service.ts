import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { parse as parseYaml } from 'yaml';
import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AnyProjectConfig, DEFAULT_TEAM, type ExperimentRunConfig, type ForkOrigin, isExperimentConfig, type HandedOffFrom, IdeaRef, isPanelConfig, jobId, liftNestedProject, loadAnyProjectConfig, NewRunEvent, OperatorPolicy, ProjectConfigError, QUEUE, RunEventEnvelope } from '@roundtable/contracts';
import { appendRunEvents, RunEventPublisher } from '@roundtable/events';
import { addToOutbox, OutboxDispatcher } from '@roundtable/service';
import { ProjectEntity, RunEntity } from '@roundtable/persistence';
import { ApiError } from './api-error';
import { IdempotencyClaim, keyReusedError } from './idempotency-key';
import { REDIS_WAIT_MS, sendAfterCommit } from './send-after-commit';
import { within } from './within';
import { YAML_CONTENT_TYPES } from './body-parsers';
import { submissionIssues } from './config-paths.check';
import { ProviderAvailabilityCheck, type SubmitOptions } from './provider-availability.check';
import { runLinks, RunLinks } from './run-links';
import { unstorableTextIssues } from './storable-text.check';
import { cassetteUnderRoots } from './cassette-roots';
import type { IdeasService } from './ideas.service';
import { findApiWorkflow, WORKFLOW_NAMES } from './workflows/api-workflows';

/** The budget's numeric caps (per_provider is not one): what run_created says the run starts with. */
function numericCaps(budget: object): Record<string, number> {
  return Object.fromEntries(Object.entries(budget).filter(([, v]) => typeof v === 'number'));
}

export interface SubmittedRun {
  id: string;
  status: 'queued';
  links: RunLinks;
}

/** A row id: the table's prefix and ten hex digits (`run_…`, `prj_…`, `exp_…`). */
export const newId = (prefix: string): string => `${prefix}_${randomBytes(5).toString('hex')}`;

/** What a run is started with: a submitted project file, or an experiment's stored file and the experiment it runs. */
export type RunnableConfig = AnyProjectConfig | ExperimentRunConfig;

/**
 * How startRun writes a run. `projectId`: an existing project (an experiment's) instead of a new
 * one. `alongside`: the caller's own rows, written in the run's transaction before the run row
 * (an experiment's row, its run_id), so neither exists without the other; it may throw to refuse.
 */
export interface StartRunOptions {
  projectId?: string;
  submittedBy: string | null;
  /** The team that owns the run (issue 26): its submitter's, or the experiment's or eval's it runs for. */
  team: string;
  unserved?: NewRunEvent[];
  alongside?: (em: EntityManager, ids: { runId: string; projectId: string }) => Promise<void>;
  /** The eval cell (issue 25) the run answers for. */
  evalCellId?: string;
}

/** A run written in a caller's transaction (storeIn), to be announced after its commit (announce). */
export interface StoredRun {
  runId: string;
  outboxIds: number[];
  events: RunEventEnvelope[];
}

interface StoreExtras {
  fork?: ForkOrigin | null;
  handoff?: HandedOffFrom | null;
  ideaRef?: IdeaRef | null;
  claim?: IdempotencyClaim;
}

/** What stands as a run's project: a build's objective, a panel's idea, an experiment's hypothesis (or what its draft is drawn from). */
function projectOf(config: RunnableConfig): { objective: string; requirements: string[] } {
  if (isExperimentConfig(config)) return { objective: config.preregistration?.hypothesis ?? config.draft_from ?? config.project, requirements: [] };
  if (isPanelConfig(config)) return { objective: `${config.idea.title}: ${config.idea.description}`, requirements: [] };
  return { objective: config.objective, requirements: config.requirements };
}

/** The answer to a submit, the same for a replay of it: the run as it was queued. */
const submitted = (runId: string): SubmittedRun => ({ id: runId, status: 'queued', links: runLinks(runId) });

/** Postgres' unique_violation on the Idempotency-Key index: another submit with the key committed first. */
function isKeyTaken(e: unknown): boolean {
  const err = e as { driverError?: { code?: string; constraint?: string } };
  return err?.driverError?.code === '23505' && err.driverError.constraint === 'ux_runs_idempotency_key';
}


function invalidConfig(err: ProjectConfigError): ApiError {
  return ApiError.badRequest('invalid_project_config', err.message, { issues: err.issues });
}

/**
 * Accepts a project config and queues its run. The config is a request: it is checked against
 * the operator's policy (read once at start) and refused with every issue at once, naming the
 * field and the policy line, before anything is written. The rows, the `run_created` event and
 * the `run.start` job are written in one transaction, so a run never exists without the job that
 * starts it; the job leaves through the outbox after the commit (the orchestrator's sweeper
 * re-sends it if this process dies in between).
 */
export class RunSubmissionService {
  private readonly log = new Logger('api');

  constructor(
    private readonly ds: DataSource,
    private readonly outbox: OutboxDispatcher,
    private readonly publisher: RunEventPublisher,
    private readonly policy: OperatorPolicy,
    private readonly providers: ProviderAvailabilityCheck,
    private readonly ideas: IdeasService,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  /**
   * With an Idempotency-Key (`opts.claim`), a submit is answered once: the same key and body again
   * get the first answer (the same run, never a second), another body under the key is a 422. The
   * key's unique index decides between two concurrent submits: the loser's transaction rolls back
   * and it answers with the winner's run.
   */
  async submit(body: unknown, opts: SubmitOptions & { claim?: IdempotencyClaim; fork?: ForkOrigin; handoff?: HandedOffFrom } = {}): Promise<SubmittedRun> {
    const { claim } = opts;
    if (claim) {
      const earlier = await this.runOfClaim(claim);
      if (earlier) return earlier;
    }
    const team = opts.team ?? DEFAULT_TEAM;
    const { body: inline, ideaRef } = await this.resolveIdeaRef(body, opts.sees === undefined ? team : opts.sees);
    const { config, unserved } = await this.validate(inline, opts);
    try {
      return await this.write(config, { submittedBy: opts.submittedBy ?? null, team, unserved }, { claim, fork: opts.fork ?? null, handoff: opts.handoff ?? null, ideaRef });
    } catch (e) {
      const winner = claim && isKeyTaken(e) ? await this.runOfClaim(claim) : undefined;
      if (winner) return winner;
      throw e;
    }
  }

  /**
   * Starts a run of an already validated config (submit's, after its checks; an experiment's, its
   * stored file): the rows, the run_created event and the run.start outbox row in one transaction
   * with the caller's own rows (`alongside`), then the after-commit send.
   */
  startRun(config: RunnableConfig, opts: StartRunOptions): Promise<SubmittedRun> {
    return this.write(config, opts, {});
  }

  private async write(config: RunnableConfig, opts: StartRunOptions, extras: StoreExtras): Promise<SubmittedRun> {
    const stored = await this.store(config, opts, extras);
    await this.afterCommit(stored.runId, stored.outboxIds, stored.events);
    return submitted(stored.runId);
  }

  /** The rows, the run_created event (and provider_unserved ones) and the run.start outbox row, in one transaction. A fork's or a handoff's origin rides on its run row. */
  private store(config: RunnableConfig, opts: StartRunOptions, extras: StoreExtras): Promise<StoredRun> {
    return this.ds.transaction((em) => this.storeIn(em, config, opts, extras));
  }

  /**
   * A project file's checks as a submit makes them (schema, operator policy, paths, providers),
   * for a caller that starts several runs at once (an eval) and refuses them all before writing any.
   */
  check(body: unknown, opts: SubmitOptions = {}): Promise<{ config: AnyProjectConfig; unserved: NewRunEvent[] }> {
    return this.validate(body, opts);
  }

  /** The run's rows in the caller's transaction (an eval writes its runs with its own rows); announce() after the commit. */
  async storeIn(
    em: EntityManager,
    config: RunnableConfig,
    { projectId: given, submittedBy, team, unserved = [], alongside, evalCellId }: StartRunOptions,
    { claim, fork = null, handoff = null, ideaRef = null }: StoreExtras = {},
  ): Promise<StoredRun> {
    {
      const projectId = given ?? newId('prj');
      const runId = newId('run');
      const stored = config as unknown as Record<string, unknown>;
      if (!given) {
        // An experiment's file is its project's config; its run's config adds the experiment's id.
        const { experiment_id: _e, ...file } = stored;
        await em.insert(ProjectEntity, { id: projectId, name: config.project, ...projectOf(config), config: file } as QueryDeepPartialEntity<ProjectEntity>);
      }
      await alongside?.(em, { runId, projectId });
      await em.insert(RunEntity, {
        id: runId,
        projectId,
        workflow: config.workflow,
        status: 'queued',
        stage: 'INIT',
        config: stored,
        submittedBy,
        team,
        forkedFrom: fork,
        handedOffFrom: handoff,
        ideaId: ideaRef?.id ?? null,
        ideaVersion: ideaRef?.version ?? null,
        evalCellId: evalCellId ?? null,
        ...(claim ? { idempotencyPrincipal: claim.principal, idempotencyKey: claim.key, requestHash: claim.requestHash } : {}),
      } as QueryDeepPartialEntity<RunEntity>);
      // The version a panel scores is locked by it in the same transaction: it can no longer change under the score.
      if (ideaRef) await this.ideas.lockForRun(em, ideaRef, runId);
      const created = {
        project: config.project,
        workflow: config.workflow,
        caps: numericCaps(config.budget),
        ...(fork ? { forked_from: { run_id: fork.run_id, stage: fork.stage } } : {}),
      };
      const events = await appendRunEvents(em, runId, [{ type: 'run_created', payload: created }, ...unserved]);
      const outboxIds = await addToOutbox(em, [
        { runId, queue: QUEUE.orchestrator, jobName: 'run.start', jobId: jobId(runId, 'start'), payload: { runId } },
      ]);
      return { runId, outboxIds, events };
    }
  }

  /** After the commit of runs written with storeIn: their run.start sent and run_created published. */
  async announce(runs: readonly StoredRun[]): Promise<void> {
    await Promise.all(runs.map((r) => this.afterCommit(r.runId, r.outboxIds, r.events)));
  }

  /**
   * A project file that names an idea worksheet version (`idea_ref: { id, version }`) instead of
   * an inline `idea`: the version, if it exists and is ready, becomes the inline idea its workflow
   * takes (asked of the api's workflow registry), and the ref is kept for the run row and the lock.
   * Any other body passes unchanged, YAML text included, so its errors are reported as before.
   * Another team's idea is refused as a missing one is (`sees`): no oracle for idea ids.
   */
  private async resolveIdeaRef(body: unknown, sees: string | null): Promise<{ body: unknown; ideaRef: IdeaRef | null }> {
    let raw: unknown = body;
    if (typeof body === 'string') {
      try {
        raw = parseYaml(body);
      } catch {
        return { body, ideaRef: null };
      }
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { body, ideaRef: null };
    const lifted = liftNestedProject(raw as Record<string, unknown>);
    if (!('idea_ref' in lifted)) return { body, ideaRef: null };
    const refuse = (path: string, message: string) => invalidConfig(new ProjectConfigError([{ path, message }]));
    const workflow = typeof lifted.workflow === 'string' ? findApiWorkflow(lifted.workflow) : undefined;
    if (!workflow?.judgesIdeas) {
      const judging = WORKFLOW_NAMES.filter((w) => findApiWorkflow(w)?.judgesIdeas);
      throw refuse('idea_ref', `idea_ref names an idea to judge, which only a ${judging.join(' or ')} run takes; this project's workflow is ${JSON.stringify(lifted.workflow ?? 'build')}`);
    }
    if ('idea' in lifted) throw refuse('idea_ref', 'give the idea inline (idea) or by reference (idea_ref), not both');
    const ref = IdeaRef.safeParse(lifted.idea_ref);
    if (!ref.success) throw invalidConfig(new ProjectConfigError(ref.error.issues.map((i) => ({ path: ['idea_ref', ...i.path.map(String)].join('.'), message: i.message }))));
    const idea = await this.ideas.resolveRef(ref.data, sees);
    const { idea_ref: _ref, ...rest } = lifted;
    return { body: { ...rest, idea }, ideaRef: ref.data };
  }

  /** The first answer given under this key, or a 422 when it was given for another body. */
  private async runOfClaim(claim: IdempotencyClaim): Promise<SubmittedRun | undefined> {
    const run = await this.ds
      .getRepository(RunEntity)
      .findOne({ select: { id: true, requestHash: true }, where: { idempotencyPrincipal: claim.principal, idempotencyKey: claim.key } });
    if (!run) return undefined;
    if (run.requestHash !== claim.requestHash) throw keyReusedError(claim.key, run.id);
    return submitted(run.id);
  }

  /** YAML text or a parsed JSON object, validated, then held against the policy and the paths checked on this machine. */
  private async validate(body: unknown, opts: SubmitOptions): Promise<{ config: AnyProjectConfig; unserved: NewRunEvent[] }> {
    if (body === undefined || body === null || (typeof body !== 'string' && typeof body !== 'object')) {
      throw new ApiError(415, {
        error: 'unsupported_media_type',
        message: `send the project config as application/json or as YAML text (${YAML_CONTENT_TYPES.join(', ')})`,
      });
    }
    let config: AnyProjectConfig;
    try {
      // `workflow: panel` is a panel run; anything else is the build (its default). A `${VAR}` is
      // refused, never expanded: this process's environment holds DATABASE_URL and the keys.
      config = loadAnyProjectConfig(body, { env: this.env, variables: 'refuse', resolveCassette: cassetteUnderRoots(this.policy.cassettes.roots) });
    } catch (e) {
      if (e instanceof ProjectConfigError) throw invalidConfig(e);
      throw e;
    }
    const issues = [...unstorableTextIssues(config), ...(await submissionIssues(config, this.policy))];
    if (issues.length) throw invalidConfig(new ProjectConfigError(issues));
    // Only a file the policy accepts is asked who can serve it.
    const served = await this.providers.check(config, opts.queueUnserved ?? false);
    if (served.issues.length) throw invalidConfig(new ProjectConfigError(served.issues));
    return { config, unserved: served.events };
  }

  /** The run is committed whatever happens here: a send not done in REDIS_WAIT_MS is left to the outbox sweeper. */
  private async afterCommit(runId: string, outboxIds: number[], events: RunEventEnvelope[]): Promise<void> {
    const latePublish = (e: Error) => this.log.warn(`run ${runId}: run_created not published (subscribers replay it from Postgres): ${e.message}`);
    const [, published] = await Promise.allSettled([
      sendAfterCommit(this.outbox, outboxIds, this.log, `run ${runId}: run.start`),
      within(this.publisher.publish(events), REDIS_WAIT_MS, latePublish),
    ]);
    if (published.status === 'rejected') latePublish(published.reason as Error);
  }
}
