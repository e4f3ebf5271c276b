import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AGENT_SCHEMAS, agentJsonSchema, formatZodIssues, isAgentSchemaName, jobId, ProjectConfig } from '@roundtable/contracts';
import { AgentCallEntity, BudgetReservationEntity, RunEntity } from '@roundtable/persistence';
import { Completion, createProvider, priceCall, ProviderError, type PricingTable } from '@roundtable/providers';
import type { JobProducer } from '@roundtable/queues';
import { recordedError, retryPlan, type RetryPlan } from './retry-policy';

type Outcome = Partial<AgentCallEntity> & { status: 'completed' | 'failed' };

/** The adapters enforce `timeout_s` themselves; this only catches an adapter that never returns. */
const BACKSTOP_MS = 10_000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderError('TIMEOUT', `no reply within ${ms} ms (the adapter did not stop at its own timeout)`, true)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export interface AgentCallOptions {
  /** Backoff before each transient-failure retry; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  pricing: PricingTable;
  /** Where adapters read API keys and CLI binaries (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
}

/** What the queue worker does with the job: it is finished (agent.done sent), or it comes back for the next try. */
export type ExecuteResult = { kind: 'done'; callId: string } | ({ kind: 'retry'; callId: string } & RetryPlan);

/**
 * Runs one queued agent call: the row already holds the exact messages, model, schema and
 * limits the orchestrator built. Calls the provider, validates the reply against the named
 * schema, prices it, records the outcome on the row, and reports back. A transient failure is
 * recorded on its row and tried again as a new row (same messages) after a backoff; only the
 * last try reports agent.done. Decides nothing about the run.
 *
 * A job carries the first try's id; each delivery works on the newest try of that chain, so
 * a job delivered again after a crash picks up where the chain stands.
 */
export class AgentCallService {
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    private readonly ds: DataSource,
    private readonly producer: JobProducer,
    private readonly opts: AgentCallOptions,
  ) {
    this.env = opts.env ?? process.env;
  }

  async execute(runId: string, callId: string): Promise<ExecuteResult> {
    const repo = this.ds.getRepository(AgentCallEntity);
    let call = await repo.findOneBy({ id: callId, runId });
    if (!call) throw new Error(`agent call ${callId} of run ${runId} does not exist`);
    for (let next = await this.retryOf(call); next; next = await this.retryOf(next)) call = next;

    if (call.status === 'queued' || call.status === 'running') {
      await repo.update({ id: call.id }, { status: 'running', startedAt: new Date() });
      const { outcome, error } = await this.callProvider(call);
      const plan = error ? retryPlan(error, call.retry, this.opts.retryDelaysMs) : null;
      if (plan) {
        const retryId = await this.recordAndRetry(call, outcome);
        if (retryId) return { kind: 'retry', callId: retryId, ...plan };
        // Another delivery recorded this try first; if it also queued a retry, that one reports.
        if (await this.retryOf(await repo.findOneByOrFail({ id: call.id }))) return { kind: 'done', callId: call.id };
      } else {
        await this.record(this.ds.manager, call.id, outcome);
      }
    }
    await this.producer.add('agent.done', { runId, callId: call.id }, { jobId: jobId(call.id, 'done') });
    return { kind: 'done', callId: call.id };
  }

  private async retryOf(call: AgentCallEntity): Promise<AgentCallEntity | null> {
    if (call.status !== 'failed') return null;
    return this.ds.getRepository(AgentCallEntity).findOneBy({ retryOf: call.id, runId: call.runId });
  }

  /** Conditional: a second delivery of the same job cannot overwrite a recorded outcome. */
  private async record(em: EntityManager, callId: string, outcome: Outcome): Promise<boolean> {
    const res = await em
      .createQueryBuilder()
      .update(AgentCallEntity)
      .set({ ...outcome, finishedAt: new Date() } as never)
      .where('id = :id AND status IN (:...open)', { id: callId, open: ['queued', 'running'] })
      .execute();
    return (res.affected ?? 0) > 0;
  }

  /**
   * Records the failed try and, in the same transaction, its retry: a new row with the next
   * per-run seq and its own budget reservation (a retry is an LLM request too). The run row
   * is locked first, in the orchestrator's order, so the two never deadlock.
   */
  private async recordAndRetry(call: AgentCallEntity, outcome: Outcome): Promise<string | null> {
    return this.ds.transaction(async (em) => {
      // TypeORM's postgres driver answers UPDATE … RETURNING with [rows, affected].
      const [[bumped]] = (await em.query(`UPDATE runs SET call_seq = call_seq + 1 WHERE id = $1 RETURNING call_seq`, [call.runId])) as [
        { call_seq: number }[],
        number,
      ];
      if (!(await this.record(em, call.id, outcome))) return null;
      const seq = Number(bumped.call_seq);
      const id = `${call.runId}-c${seq}`;
      const retry: QueryDeepPartialEntity<AgentCallEntity> = {
        id,
        runId: call.runId,
        seq,
        stage: call.stage,
        role: call.role,
        provider: call.provider,
        model: call.model,
        label: call.label,
        attempt: call.attempt,
        repairOf: call.repairOf,
        retry: call.retry + 1,
        retryOf: call.id,
        status: 'queued',
        promptHash: call.promptHash,
        messages: call.messages as never,
        contextRefs: call.contextRefs as never,
        schemaName: call.schemaName,
        maxTokens: call.maxTokens,
        temperature: call.temperature,
        timeoutMs: call.timeoutMs,
      };
      await em.insert(AgentCallEntity, retry);
      const [held] = (await em.query(`SELECT tokens FROM budget_reservations WHERE call_id = $1`, [call.id])) as { tokens: number }[];
      await em
        .createQueryBuilder()
        .insert()
        .into(BudgetReservationEntity)
        .values({ callId: id, runId: call.runId, provider: call.provider, calls: 1, tokens: held?.tokens ?? 0, costUsd: null })
        .orIgnore()
        .execute();
      return id;
    });
  }

  private async callProvider(call: AgentCallEntity): Promise<{ outcome: Outcome; error: ProviderError | null }> {
    const failed = (errorCode: string, error: string): { outcome: Outcome; error: null } => ({
      outcome: { status: 'failed', valid: null, error, errorCode },
      error: null,
    });
    const run = await this.ds.getRepository(RunEntity).findOneByOrFail({ id: call.runId });
    if (run.status === 'cancelled') {
      // Cancel stops between steps: a call not yet started is not sent (and not billed).
      return failed('CANCELLED', 'the run was cancelled before this call started');
    }
    const config = run.config as unknown as ProjectConfig;
    const providerCfg = config.providers[call.provider];
    if (!providerCfg) return failed('PROVIDER_ERROR', `provider "${call.provider}" is not in the run's config`);
    if (!call.schemaName || !isAgentSchemaName(call.schemaName)) return failed('SCHEMA_UNKNOWN', `unknown schema ${call.schemaName}`);
    const agent = (config.agents as Partial<ProjectConfig['agents']> | undefined)?.[call.role as keyof ProjectConfig['agents']];
    const timeoutMs = call.timeoutMs ?? 180_000;
    const started = Date.now();
    let completion: Completion;
    try {
      const provider = createProvider(call.provider, providerCfg, { env: this.env });
      completion = await withTimeout(
        provider.run({
          messages: call.messages,
          model: call.model,
          schemaName: call.schemaName,
          jsonSchema: agentJsonSchema(call.schemaName),
          maxTokens: call.maxTokens ?? 4096,
          temperature: call.temperature ?? 0.2,
          timeoutMs,
          maxTurns: agent?.max_turns,
          effort: agent?.effort,
          role: call.role,
          ordinal: await this.ordinalOf(call),
        }),
        timeoutMs + BACKSTOP_MS,
      );
    } catch (e) {
      const err = e instanceof ProviderError ? e : new ProviderError('PROVIDER_ERROR', (e as Error).message);
      return {
        outcome: { status: 'failed', valid: null, error: recordedError(err), errorCode: err.code, latencyMs: Date.now() - started },
        error: err,
      };
    }
    const price = priceCall(this.opts.pricing, completion.model || call.model, completion.usage, completion.reportedCostUsd);
    const recorded: Outcome = {
      status: 'completed',
      responseText: completion.text,
      parsed: completion.parsed as Record<string, unknown> | null,
      inputTokens: completion.usage.inputTokens,
      outputTokens: completion.usage.outputTokens,
      cachedInputTokens: completion.usage.cachedInputTokens,
      latencyMs: completion.latencyMs,
      requestId: completion.requestId,
      costUsd: price.costUsd,
      costSource: price.costSource,
      billing: completion.billing ?? null,
      argv: completion.argv ?? null,
    };
    if (completion.parsed === null) {
      return { outcome: { ...recorded, valid: false, errorCode: 'SCHEMA_INVALID', error: 'the reply is not a JSON object' }, error: null };
    }
    const checked = AGENT_SCHEMAS[call.schemaName].safeParse(completion.parsed);
    return {
      outcome: checked.success
        ? { ...recorded, valid: true, parsed: checked.data as Record<string, unknown> }
        : { ...recorded, valid: false, errorCode: 'SCHEMA_INVALID', error: formatZodIssues(checked.error) },
      error: null,
    };
  }

  /** Replay plays replies in order per role: this call's position among the run's calls of that role. */
  private async ordinalOf(call: AgentCallEntity): Promise<number> {
    return this.ds
      .getRepository(AgentCallEntity)
      .createQueryBuilder('c')
      .where('c.run_id = :runId AND c.role = :role AND c.provider = :provider AND c.seq < :seq', {
        runId: call.runId,
        role: call.role,
        provider: call.provider,
        seq: call.seq,
      })
      .getCount();
  }
}
