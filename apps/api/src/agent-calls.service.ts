import { AgentCallEntity } from '@roundtable/persistence';
import { ApiError } from './api-error';
import type { CallListQuery } from './query-params';
import type { ReadDb } from './read-db';
import type { RunQueryService } from './run-query.service';
import { callDetailView, callSummaryView } from './run-views';

/**
 * The audit log of a run's LLM requests, in the order the orchestrator issued them. Pure reads, on
 * the replica when there is one: a call still in flight may show a moment behind, as it would by
 * the time any reply arrived; a run or a call the replica does not have yet is read from the primary.
 */
export class AgentCallsService {
  constructor(
    private readonly db: ReadDb,
    private readonly runs: RunQueryService,
  ) {}

  async list(runId: string, q: CallListQuery) {
    // The calls from the database that had the run (RunQueryService.located), so they are never older than it.
    const { ds } = await this.runs.located(runId);
    const qb = ds.getRepository(AgentCallEntity).createQueryBuilder('c').where('c.run_id = :runId', { runId });
    if (q.role) qb.andWhere('c.role = :role', { role: q.role });
    if (q.stage) qb.andWhere('c.stage = :stage', { stage: q.stage });
    // "failed" covers both a request that errored and a reply that did not validate.
    if (q.failed === true) qb.andWhere(`(c.status = 'failed' OR c.valid IS FALSE)`);
    if (q.failed === false) qb.andWhere(`(c.status <> 'failed' AND c.valid IS NOT FALSE)`);
    const calls = await qb.orderBy('c.seq', 'ASC').getMany();
    return calls.map(callSummaryView);
  }

  async get(runId: string, callId: string) {
    const call = await this.db.orPrimary((ds) => ds.getRepository(AgentCallEntity).findOneBy({ id: callId, runId }));
    if (!call) {
      await this.runs.runOrThrow(runId);
      throw ApiError.notFound('call_not_found', `no call ${callId} in run ${runId}`);
    }
    return callDetailView(call);
  }
}
