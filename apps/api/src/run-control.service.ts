import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { isRequestJob, jobId, jobSchema, type JobOf, QUEUE, RunStatus, TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import { addToOutbox, OutboxDispatcher, OutboxJob } from '@roundtable/service';
import { ApiError } from './api-error';
import { countRequest, requestsAsked } from './run-requests';
import { sendAfterCommit } from './send-after-commit';
import { ResumeRequest } from './resume-request.schema';
import { runLinks, RunLinks } from './run-links';
import { apiWorkflowOf } from './workflows/api-workflows';

export interface ControlRequested {
  id: string;
  requested: 'cancel' | 'resume';
  /** The run's status when the request was accepted; the orchestrator acts on the job. */
  status: RunStatus;
  job_id: string;
  links: RunLinks;
}

function invalidResume(issues: { path: string; message: string }[]): ApiError {
  // Every message of ResumeRequest names its field already.
  return ApiError.badRequest('invalid_resume_request', issues.map((i) => i.message).join('; '), { issues });
}

/**
 * Cancel and resume only ask: each writes a `run.cancel` / `run.resume` job to the outbox in
 * a transaction that holds the run's row lock (so the status it checked is the status it acted
 * on, and concurrent requests count each other), and sends it after the commit. Stopping and
 * restarting the run is the orchestrator's work.
 */
export class RunControlService {
  private readonly log = new Logger('api');

  constructor(
    private readonly ds: DataSource,
    private readonly outbox: OutboxDispatcher,
  ) {}

  async cancel(runId: string): Promise<ControlRequested> {
    return this.request(runId, 'cancel', async ({ status }) => {
      if (TERMINAL_RUN_STATUSES.includes(status)) {
        throw new ApiError(409, { error: 'run_finished', message: `run ${runId} is already ${status}; there is nothing to cancel`, status });
      }
      return { runId, queue: QUEUE.orchestrator, jobName: 'run.cancel', jobId: jobId(runId, 'cancel'), payload: { runId } };
    });
  }

  async resume(runId: string, body: unknown): Promise<ControlRequested> {
    const req = parseResumeRequest(body);
    return this.request(runId, 'resume', async ({ status, workflow }, asked) => {
      const { module } = apiWorkflowOf({ id: runId, workflow });
      if (!module.resumable.includes(status)) {
        throw new ApiError(409, {
          error: 'run_not_resumable',
          message: `run ${runId} is ${status}; only a ${module.resumable.join(', ')} run can be resumed`,
          status,
        });
      }
      if (req.from && !module.stages.includes(req.from)) {
        throw invalidResume([{ path: 'from', message: `from: a ${module.name} run has no stage ${req.from}; its stages: ${module.stages.join(', ')}` }]);
      }
      // One job per request (numbered by the run's count of them): BullMQ would drop a second resume that reused the first one's id.
      const payload = jobSchema('run.resume').parse({ runId, from: req.from, caps: req.caps }) as JobOf<'run.resume'>;
      return { runId, queue: QUEUE.orchestrator, jobName: 'run.resume', jobId: jobId(runId, 'resume', asked + 1), payload };
    });
  }

  /**
   * `decide` sees the run under its lock and how many requests of this kind were accepted before
   * (the run's `requests`, which it bumps for a request job: the api is that column's one writer).
   */
  private async request(
    runId: string,
    requested: ControlRequested['requested'],
    decide: (run: { status: RunStatus; workflow: string }, asked: number) => Promise<OutboxJob>,
  ): Promise<ControlRequested> {
    const { job, ids, status } = await this.ds.transaction(async (em) => {
      const [row] = (await em.query(`SELECT status, workflow, requests FROM runs WHERE id = $1 FOR UPDATE`, [runId])) as {
        status: RunStatus;
        workflow: string;
        requests: Partial<Record<string, number>>;
      }[];
      if (!row) throw ApiError.notFound('run_not_found', `no run ${runId}`);
      const job = await decide(row, requestsAsked(row.requests, `run.${requested}`));
      if (isRequestJob(job.jobName)) await countRequest(em, runId, job.jobName);
      return { job, ids: await addToOutbox(em, [job]), status: row.status };
    });
    await sendAfterCommit(this.outbox, ids, this.log, `run ${runId}: ${job.jobName}`);
    return { id: runId, requested, status, job_id: job.jobId, links: runLinks(runId) };
  }
}

/** No body, or an empty one, asks for a plain resume. */
export function parseResumeRequest(body: unknown): ResumeRequest {
  const empty = body === undefined || body === null || body === '' || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0);
  const parsed = ResumeRequest.safeParse(empty ? {} : body);
  if (parsed.success) return parsed.data;
  throw invalidResume(
    parsed.error.issues.map((i) => {
      const at = i.path.map(String);
      // An unknown field is named by its own path, not by the object that holds it.
      const keys = i.code === 'unrecognized_keys' ? i.keys : [];
      return { path: [...at, ...(keys.length === 1 ? keys : [])].join('.'), message: i.message };
    }),
  );
}
