import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AnyProjectConfig, isPanelConfig, jobId, loadAnyProjectConfig, NewRunEvent, OperatorPolicy, ProjectConfigError, QUEUE, RunEventEnvelope } from '@roundtable/contracts';
import { addToOutbox, appendRunEvents, OutboxDispatcher, RunEventPublisher } from '@roundtable/events';
import { ProjectEntity, RunEntity } from '@roundtable/persistence';
import { ApiError } from './api-error';
import { YAML_CONTENT_TYPES } from './body-parsers';
import { submissionIssues } from './config-paths.check';
import { ProviderAvailabilityCheck, type SubmitOptions } from './provider-availability.check';
import { runLinks, RunLinks } from './run-links';
import { unstorableTextIssues } from './storable-text.check';

export interface SubmittedRun {
  id: string;
  status: 'queued';
  links: RunLinks;
}

const newId = (prefix: string): string => `${prefix}_${randomBytes(5).toString('hex')}`;

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
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  async submit(body: unknown, opts: SubmitOptions = {}): Promise<SubmittedRun> {
    const { config, unserved } = await this.validate(body, opts);
    const { runId, outboxIds, events } = await this.ds.transaction(async (em) => {
      const projectId = newId('prj');
      const runId = newId('run');
      const stored = config as unknown as Record<string, unknown>;
      // A panel's project is its idea: what it is judged on stands where a build's objective does.
      const project = isPanelConfig(config)
        ? { objective: `${config.idea.title}: ${config.idea.description}`, requirements: [] }
        : { objective: config.objective, requirements: config.requirements };
      await em.insert(ProjectEntity, {
        id: projectId,
        name: config.project,
        ...project,
        config: stored,
      } as QueryDeepPartialEntity<ProjectEntity>);
      await em.insert(RunEntity, {
        id: runId,
        projectId,
        workflow: config.workflow,
        status: 'queued',
        stage: 'INIT',
        config: stored,
      } as QueryDeepPartialEntity<RunEntity>);
      const events = await appendRunEvents(em, runId, [{ type: 'run_created', payload: { project: config.project, workflow: config.workflow } }, ...unserved]);
      const outboxIds = await addToOutbox(em, [
        { runId, queue: QUEUE.orchestrator, jobName: 'run.start', jobId: jobId(runId, 'start'), payload: { runId } },
      ]);
      return { runId, outboxIds, events };
    });
    await this.afterCommit(runId, outboxIds, events);
    return { id: runId, status: 'queued', links: runLinks(runId) };
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
      config = loadAnyProjectConfig(body, { env: this.env, variables: 'refuse' });
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

  /** The run is committed whatever happens here: a failed send is left to the outbox sweeper. */
  private async afterCommit(runId: string, outboxIds: number[], events: RunEventEnvelope[]): Promise<void> {
    try {
      await this.outbox.dispatch(outboxIds);
    } catch (e) {
      this.log.warn(`run ${runId}: run.start left in the outbox for the sweeper: ${(e as Error).message}`);
    }
    try {
      await this.publisher.publish(events);
    } catch (e) {
      this.log.warn(`run ${runId}: run_created not published (subscribers replay it from Postgres): ${(e as Error).message}`);
    }
  }
}
