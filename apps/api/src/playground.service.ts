import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { agentQueueName, jobId, modelIdProblem, type OperatorPolicy, type PlaygroundCall } from '@roundtable/contracts';
import { AgentCallEntity, PlaygroundCallEntity } from '@roundtable/persistence';
import { addToOutbox, OutboxDispatcher } from '@roundtable/service';
import { ApiError } from './api-error';
import type { Principal } from './bearer-auth.middleware';
import { sendAfterCommit } from './send-after-commit';

const MESSAGE_MAX = 200_000;

/** POST /v1/runs/:id/calls/:callId/playground: what to change; anything left out is the original call's. */
export const PlaygroundRequest = z
  .object({
    messages: z
      .array(
        z
          .object({
            role: z.enum(['system', 'user', 'assistant'], { error: 'messages[].role is system, user or assistant' }),
            content: z.string({ error: 'messages[].content is text' }).max(MESSAGE_MAX, `messages[].content is at most ${MESSAGE_MAX} characters`),
          })
          .strict(),
        { error: 'messages is a list of { role, content }' },
      )
      .min(1, 'messages holds at least one message')
      .max(200, 'messages holds at most 200 messages')
      .optional(),
    provider: z.string({ error: "provider names one of the run's providers" }).min(1).optional(),
    model: z.string({ error: 'model is a model id' }).min(1).optional(),
  })
  .strict();

function invalid(issues: { path: string; message: string }[]): ApiError {
  return ApiError.badRequest('invalid_playground_request', issues.map((i) => i.message).join('; '), { issues });
}

/**
 * The workbench's playground (issue 22): one of a run's calls asked again with an edited prompt,
 * model or provider, as a call of its own (a playground_calls row the provider-worker answers),
 * never part of the run: not its usage, budget, events or report. The provider must be one the
 * run's project declared (held to the policy again at the worker), and the operator's policy
 * caps how many a run may have (playground.max_calls_per_run; 0 turns the playground off).
 */
export class PlaygroundService {
  private readonly log = new Logger('api');

  constructor(
    private readonly ds: DataSource,
    private readonly outbox: OutboxDispatcher,
    private readonly policy: Pick<OperatorPolicy, 'playground'>,
  ) {}

  async tryAgain(runId: string, callId: string, body: unknown, who: Principal | undefined): Promise<PlaygroundCall> {
    const parsed = PlaygroundRequest.safeParse(body ?? {});
    if (!parsed.success) throw invalid(parsed.error.issues.map((i) => ({ path: [...i.path.map(String), ...(i.code === 'unrecognized_keys' && i.keys.length === 1 ? i.keys : [])].join('.'), message: i.message })));
    const req = parsed.data;
    const cap = this.policy.playground.max_calls_per_run;
    if (cap === 0) {
      throw new ApiError(403, { error: 'playground_off', message: "the operator's policy turns the playground off (playground.max_calls_per_run is 0)" });
    }
    const source = await this.ds.getRepository(AgentCallEntity).findOneBy({ id: callId, runId });
    if (!source) throw ApiError.notFound('call_not_found', `no call ${callId} in run ${runId}`);
    const [run] = (await this.ds.query(`SELECT config FROM runs WHERE id = $1`, [runId])) as { config: { providers?: Record<string, unknown>; agents?: Record<string, { timeout_s?: number }> } }[];
    const provider = req.provider ?? source.provider;
    if (!run.config.providers || !Object.prototype.hasOwnProperty.call(run.config.providers, provider)) {
      throw invalid([{ path: 'provider', message: `provider "${provider}" is not one of the run's providers (${Object.keys(run.config.providers ?? {}).join(', ')})` }]);
    }
    const model = req.model ?? source.model;
    const badModel = modelIdProblem(model);
    if (badModel) throw invalid([{ path: 'model', message: `model ${badModel}` }]);

    const row = await this.ds.transaction(async (em) => {
      // The run row's lock: two requests at once count each other against the cap.
      await em.query(`SELECT 1 FROM runs WHERE id = $1 FOR UPDATE`, [runId]);
      const [{ n }] = (await em.query(`SELECT count(*)::int AS n FROM playground_calls WHERE run_id = $1`, [runId])) as { n: number }[];
      if (n >= cap) {
        throw new ApiError(409, { error: 'playground_cap', message: `run ${runId} has had its ${cap} playground calls (playground.max_calls_per_run in the operator's policy)` });
      }
      const id = `${runId}-pg${n + 1}`;
      const entity = em.getRepository(PlaygroundCallEntity).create({
        id,
        runId,
        sourceCallId: source.id,
        role: source.role,
        provider,
        model,
        schemaName: source.schemaName ?? '',
        messages: (req.messages ?? (source.messages as { role: string; content: string }[]).map((m) => ({ role: m.role, content: m.content }))) as never,
        maxTokens: Math.min(source.maxTokens ?? 4096, this.policy.playground.max_tokens_per_call),
        temperature: source.temperature ?? 0.2,
        timeoutMs: source.timeoutMs ?? 180_000,
        status: 'queued',
        requestedBy: who?.name ?? 'anonymous',
      });
      await em.getRepository(PlaygroundCallEntity).insert(entity as never);
      const ids = await addToOutbox(em, [{ runId, queue: agentQueueName(provider), jobName: 'playground.call', jobId: jobId(id, 'playground'), payload: { runId, playgroundId: id } }]);
      return { entity, ids };
    });
    await sendAfterCommit(this.outbox, row.ids, this.log, `run ${runId}: playground call ${row.entity.id}`);
    return playgroundView((await this.ds.getRepository(PlaygroundCallEntity).findOneByOrFail({ id: row.entity.id }))!);
  }

  async list(runId: string, callId: string): Promise<PlaygroundCall[]> {
    const rows = await this.ds.getRepository(PlaygroundCallEntity).find({ where: { runId, sourceCallId: callId }, order: { createdAt: 'ASC' } });
    if (!rows.length && !(await this.ds.getRepository(AgentCallEntity).existsBy({ id: callId, runId }))) throw ApiError.notFound('call_not_found', `no call ${callId} in run ${runId}`);
    return rows.map(playgroundView);
  }
}

export function playgroundView(r: PlaygroundCallEntity): PlaygroundCall {
  return {
    id: r.id,
    source_call_id: r.sourceCallId,
    role: r.role,
    provider: r.provider,
    model: r.model,
    status: r.status as PlaygroundCall['status'],
    messages: (r.messages as { role: string; content: string }[]).map((m) => ({ role: m.role, content: m.content })),
    response_text: r.responseText,
    parsed: r.parsed,
    valid: r.valid,
    error: r.error,
    error_code: r.errorCode,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cost_usd: r.costUsd,
    latency_ms: r.latencyMs,
    requested_by: r.requestedBy,
    created_at: r.createdAt.toISOString(),
    finished_at: r.finishedAt ? r.finishedAt.toISOString() : null,
  };
}
