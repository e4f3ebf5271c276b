import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { z } from 'zod';
import { isRequestJob, jobId, roleMayApprove, jobSchema, type JobOf, type OperatorPolicy, QUEUE, RunStatus, TERMINAL_RUN_STATUSES } from '@roundtable/contracts';
import type { Principal } from './bearer-auth.middleware';
import { AnswerRequest, ApprovalRequest } from './people-requests.schema';
import { addToOutbox, OutboxDispatcher, OutboxJob } from '@roundtable/service';
import { ApiError } from './api-error';
import { countRequest, requestsAsked } from './run-requests';
import { sendAfterCommit } from './send-after-commit';
import { ResumeRequest } from './resume-request.schema';
import { runLinks, RunLinks } from './run-links';
import { apiWorkflowOf } from './workflows/api-workflows';

export interface ControlRequested {
  id: string;
  requested: 'cancel' | 'resume' | 'approve' | 'answer';
  /** The run's status when the request was accepted; the orchestrator acts on the job. */
  status: RunStatus;
  job_id: string;
  links: RunLinks;
}

function invalidBody(error: string, issues: { path: string; message: string }[]): ApiError {
  return ApiError.badRequest(error, issues.map((i) => i.message).join('; '), { issues });
}

/** A request body through its schema; every message names its field (the schemas say so). */
function parseBody<T>(schema: z.ZodType<T>, body: unknown, error: string): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  throw invalidBody(
    error,
    parsed.error.issues.map((i) => ({ path: [...i.path.map(String), ...(i.code === 'unrecognized_keys' && i.keys.length === 1 ? i.keys : [])].join('.'), message: i.message })),
  );
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
    /** The operator's: whether four eyes holds at the gates. */
    private readonly policy: Pick<OperatorPolicy, 'approvals'> = { approvals: { four_eyes: false, autonomous_merge: false } },
  ) {}

  /**
   * A person's decision at the gate the run waits at (issue 21). Only a token with the approve
   * role (or admin, which has every right approve has) may take it (403 naming the role), and with four eyes not the token that submitted the
   * run; the run must be waiting at exactly that gate (409 naming the one it waits at, if any).
   */
  async approve(runId: string, body: unknown, who: Principal | undefined): Promise<ControlRequested> {
    const req = parseBody(ApprovalRequest, body, 'invalid_approval');
    const approver = who?.name ?? 'anonymous';
    if (!who || !roleMayApprove(who.role)) {
      throw new ApiError(403, {
        error: 'forbidden',
        message: `token ${approver} has the ${who?.role ?? 'no'} role; approving or refusing at a gate needs a token with the approve role, or admin (API_TOKENS name:token:approve:team)`,
        role_needed: 'approve',
      });
    }
    return this.request(runId, 'approve', async (run, asked) => {
      const gate = (run.gate as { name?: string } | null)?.name ?? null;
      if (run.status !== 'awaiting_approval' || !gate) {
        throw new ApiError(409, { error: 'not_awaiting_approval', message: `run ${runId} is ${run.status} and waits at no gate; there is nothing to approve`, status: run.status });
      }
      if (gate !== req.gate) {
        throw new ApiError(409, { error: 'wrong_gate', message: `run ${runId} waits at the ${gate} gate, not at ${req.gate}; send gate: "${gate}"`, gate });
      }
      if (this.policy.approvals.four_eyes && run.submitted_by === approver) {
        throw new ApiError(403, {
          error: 'four_eyes',
          message: `token ${approver} submitted run ${runId}, and the operator's policy requires four eyes (approvals.four_eyes): another approver must decide`,
        });
      }
      if (req.edits && gate !== 'criteria') {
        throw invalidBody('invalid_approval', [{ path: 'edits', message: `edits change the criteria, at the criteria gate only; the run waits at the ${gate} gate` }]);
      }
      if (req.edits && req.decision === 'reject') {
        throw invalidBody('invalid_approval', [{ path: 'edits', message: 'edits come with an approval; a refusal stops the run with the criteria as they are' }]);
      }
      const payload = jobSchema('run.approve').parse({
        runId,
        gate,
        decision: req.decision,
        note: req.note ?? null,
        approver,
        ...(req.edits ? { criteria: req.edits.criteria } : {}),
      }) as JobOf<'run.approve'>;
      return { runId, queue: QUEUE.orchestrator, jobName: 'run.approve', jobId: jobId(runId, 'approve', asked + 1), payload };
    });
  }

  /**
   * A person's answer to an open question of the run (any token that may write): recorded with
   * who gave it; the run goes on once a needs_input run has no question left open. 404 for a
   * question the run does not have, 409 for one answered already.
   */
  async answer(runId: string, body: unknown, who: Principal | undefined): Promise<ControlRequested> {
    const req = parseBody(AnswerRequest, body, 'invalid_answer');
    return this.request(runId, 'answer', async (run, asked, em) => {
      const index = Number(req.question_id.slice(1)) - 1;
      const [question] = (await em.query(`SELECT status FROM open_questions WHERE run_id = $1 ORDER BY id OFFSET $2 LIMIT 1`, [runId, index])) as { status: string }[];
      if (!question) throw ApiError.notFound('question_not_found', `run ${runId} has no open question ${req.question_id}`);
      if (question.status !== 'open') throw new ApiError(409, { error: 'question_answered', message: `question ${req.question_id} of run ${runId} is answered already` });
      if (run.status === 'cancelled') throw new ApiError(409, { error: 'run_finished', message: `run ${runId} was cancelled; an answer would change nothing`, status: run.status });
      const payload = jobSchema('run.answer').parse({ runId, questionId: req.question_id, answer: req.answer, answeredBy: who?.name ?? 'anonymous' }) as JobOf<'run.answer'>;
      return { runId, queue: QUEUE.orchestrator, jobName: 'run.answer', jobId: jobId(runId, 'answer', asked + 1), payload };
    });
  }

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
    decide: (run: { status: RunStatus; workflow: string; gate: unknown; submitted_by: string | null }, asked: number, em: EntityManager) => Promise<OutboxJob>,
  ): Promise<ControlRequested> {
    const { job, ids, status } = await this.ds.transaction(async (em) => {
      const [row] = (await em.query(`SELECT status, workflow, requests, gate, submitted_by FROM runs WHERE id = $1 FOR UPDATE`, [runId])) as {
        status: RunStatus;
        workflow: string;
        requests: Partial<Record<string, number>>;
        gate: unknown;
        submitted_by: string | null;
      }[];
      if (!row) throw ApiError.notFound('run_not_found', `no run ${runId}`);
      const job = await decide(row, requestsAsked(row.requests, `run.${requested}`), em);
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
