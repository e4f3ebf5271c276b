import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { jobId, QUEUE, type RunStatus } from '@roundtable/contracts';
import { addToOutbox, OutboxDispatcher, OutboxJob } from '@roundtable/service';
import { RunEntity } from '@roundtable/persistence';
import { canAppeal, currentScores } from '@roundtable/workflow';
import { ApiError } from './api-error';
import { sendAfterCommit } from './send-after-commit';
import { AppealRequest } from './appeal-request.schema';
import { unstorableTextIssues } from './storable-text.check';
import { panelStateOfRun } from './workflows/panel-summary';
import { runLinks, RunLinks } from './run-links';
import { countRequest, requestsAsked, requestsPending } from './run-requests';
import { findApiWorkflow } from './workflows/api-workflows';
import type { IdeasService } from './ideas.service';

export interface AppealRequested {
  id: string;
  requested: 'appeal';
  status: RunStatus;
  judges: AppealRequest['judges'];
  evidence: number;
  job_id: string;
  links: RunLinks;
}

export function parseAppealRequest(body: unknown): AppealRequest {
  const parsed = AppealRequest.safeParse(body ?? undefined);
  // The evidence is stored (jsonb) and sent on: a NUL or a lone surrogate would be a 500 at the insert.
  const issues = parsed.success ? unstorableTextIssues(parsed.data) : parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  if (parsed.success && !issues.length) return parsed.data;
  // Messages that do not name their field get the path in front (evidence.0: …).
  const message = issues.map((i) => (i.path && !i.message.startsWith(i.path.split('.')[0]) ? `${i.path}: ${i.message}` : i.message)).join('; ');
  throw ApiError.badRequest('invalid_appeal_request', message, { issues });
}

/**
 * An appeal only asks, like cancel and resume: with the run's row locked it checks that this
 * finished panel may take its one appeal, writes a `run.appeal` job to the outbox, and sends it
 * after the commit; the orchestrator's decidePanel() runs the re-scores. An appeal not yet
 * applied blocks a second one (409 appeal_pending); once applied, the run's state says whether
 * the appeal was used (409 appeal_used) or refused by the budget, which leaves it to be asked
 * again, with `caps` raised.
 */
export class RunAppealService {
  private readonly log = new Logger('api');

  constructor(
    private readonly ds: DataSource,
    private readonly outbox: OutboxDispatcher,
    private readonly ideas: IdeasService,
  ) {}

  async appeal(runId: string, body: unknown): Promise<AppealRequested> {
    const req = parseAppealRequest(body);
    const { job, ids, status, count } = await this.ds.transaction(async (em) => {
      const run = await em.findOne(RunEntity, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
      if (!run) throw ApiError.notFound('run_not_found', `no run ${runId}`);
      const refuse = (error: string, message: string) => new ApiError(409, { error, message, status: run.status });
      if (!findApiWorkflow(run.workflow)?.appealable) throw refuse('not_a_panel_run', `run ${runId} is a ${run.workflow} run; only a panel run can be appealed`);
      // The body's ledger ids are checked before the run's state: an unknown id is the request's fault whatever the run's state.
      const evidence = [...(req.evidence ?? []), ...(await this.ledgerEvidence(run, req.evidence_ids))];
      // Appeals asked before, and whether one still waits for the orchestrator: both on the run row.
      const asked = requestsAsked(run.requests, 'run.appeal');
      if (requestsPending(run, 'run.appeal') > 0) throw refuse('appeal_pending', `run ${runId} has an appeal waiting to be applied; ask again once it has started or been refused`);
      const state = panelStateOfRun(run);
      const allowed = canAppeal(state);
      if (!allowed.ok) {
        const used = state.appeal !== null;
        throw refuse(used ? 'appeal_used' : 'appeal_not_allowed', used ? `run ${runId} has had its one appeal` : `run ${runId} cannot be appealed: ${allowed.reason}`);
      }
      const scores = currentScores(state);
      const unscored = req.judges.filter((j) => scores[j] === undefined);
      if (unscored.length) throw refuse('judge_not_scored', `run ${runId} has no score from ${unscored.join(', ')} to appeal`);
      const job: OutboxJob = {
        runId,
        queue: QUEUE.orchestrator,
        jobName: 'run.appeal',
        // One job per request: an appeal the budget refused may be asked again (with caps raised).
        jobId: asked === 0 ? jobId(runId, 'appeal') : jobId(runId, 'appeal', asked + 1),
        payload: { runId, evidence, judges: [...new Set(req.judges)], ...(req.caps ? { caps: req.caps } : {}) },
      };
      await countRequest(em, runId, 'run.appeal');
      return { job, ids: await addToOutbox(em, [job]), status: run.status, count: evidence.length };
    });
    await sendAfterCommit(this.outbox, ids, this.log, `run ${runId}: run.appeal`);
    return { id: runId, requested: 'appeal', status, judges: req.judges, evidence: count, job_id: job.jobId, links: runLinks(runId) };
  }

  /** The idea's ledger entries an appeal cites, as evidence texts ("[E1] claim — source"); only a run submitted on an idea worksheet has a ledger. */
  private async ledgerEvidence(run: RunEntity, ids: readonly string[] | undefined): Promise<string[]> {
    if (!ids) return [];
    if (!run.ideaId) {
      throw ApiError.badRequest('invalid_appeal_request', `evidence_ids: run ${run.id} was not submitted on an idea worksheet (idea_ref), so it has no evidence ledger; send the evidence as text`, {
        issues: [{ path: 'evidence_ids', message: 'the run has no idea ledger' }],
      });
    }
    return this.ideas.evidenceTexts(run.ideaId, ids);
  }
}
