import type { DataSource } from 'typeorm';
import { TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { RunEntity } from '@roundtable/persistence';
import { ApiError } from './api-error';
import { callsBeforeStage, ForkRefusal, type OriginalCallRow } from './fork-calls';
import { ForkRequest, overlay } from './fork-request.schema';
import type { RunSubmissionService, SubmittedRun } from './run-submission.service';
import { apiWorkflowOf } from './workflows/api-workflows';
import type { Submitter } from './team-scope';
import { runNotFound } from './team-owned';

export interface ForkedRun extends SubmittedRun {
  forked_from: { run_id: string; stage: string; copied_calls: number };
}

const ENDED: ReadonlySet<string> = new Set(TERMINAL_RUN_STATUSES);

function invalidFork(path: string, message: string): ApiError {
  return ApiError.badRequest('invalid_fork_request', message, { issues: [{ path, message }] });
}

/**
 * "Run again from <stage>" (issue 22): a new run of the original's workflow, with the original's
 * project config and the request's edits, that copies the calls the original made before that
 * stage instead of asking for them again (the orchestrator copies them as the engine asks: the
 * rows carry `copied_from`, nothing is billed twice) and goes on live from there. The new config
 * is a submission like any other: the same schema and the same operator policy judge it, so an
 * edit can ask for nothing a new run could not. Only an ended run is forked: a running one's
 * calls are still coming.
 */
export class RunForkService {
  constructor(
    private readonly ds: DataSource,
    private readonly submission: RunSubmissionService,
  ) {}

  async fork(runId: string, body: unknown, by: Submitter): Promise<ForkedRun> {
    const parsed = ForkRequest.safeParse(body ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
      throw ApiError.badRequest('invalid_fork_request', issues.map((i) => i.message).join('; '), { issues });
    }
    const req = parsed.data;
    const run = await this.ds.getRepository(RunEntity).findOneBy({ id: runId });
    if (!run) throw runNotFound(runId);
    const notForkable = apiWorkflowOf(run).noFork;
    if (notForkable) throw new ApiError(409, { error: 'run_not_forkable', message: `run ${runId} cannot be forked: ${notForkable}` });
    if (!ENDED.has(run.status)) {
      throw new ApiError(409, {
        error: 'run_not_ended',
        message: `run ${runId} is ${run.status}: a fork starts from a run that has ended (${TERMINAL_RUN_STATUSES.join(', ')}); wait for it, or cancel it first`,
        status: run.status,
      });
    }
    const calls: OriginalCallRow[] = await this.ds.query(
      `SELECT id, seq, stage, role, label, attempt, retry, status FROM agent_calls WHERE run_id = $1 ORDER BY seq`,
      [runId],
    );
    let copied;
    try {
      copied = callsBeforeStage(calls, req.from);
    } catch (e) {
      if (e instanceof ForkRefusal) throw invalidFork('from', e.message);
      throw e;
    }
    const config = overlay(run.config as Record<string, unknown>, req.edits ?? {});
    const fork = { run_id: runId, stage: req.from, calls: copied };
    // The fork is the forker's run, in the forker's team; an idea_ref it carries is checked as the forker's.
    const submitted = await this.submission.submit(config, { submittedBy: by.name, team: by.team, sees: by.sees, fork });
    return { ...submitted, forked_from: { run_id: runId, stage: req.from, copied_calls: Object.keys(copied).length } };
  }
}
