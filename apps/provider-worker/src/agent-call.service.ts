import type { DataSource } from 'typeorm';
import { AGENT_SCHEMAS, agentJsonSchema, formatZodIssues, isAgentSchemaName, jobId, ProjectConfig } from '@roundtable/contracts';
import { AgentCallEntity, RunEntity } from '@roundtable/persistence';
import { Completion, createProvider, ProviderError } from '@roundtable/providers';
import type { JobProducer } from '@roundtable/queues';

type Outcome = Partial<AgentCallEntity> & { status: 'completed' | 'failed' };

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderError('TIMEOUT', `no reply within ${ms} ms`, true)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs one queued agent call: the row already holds the exact messages, model, schema and
 * limits the orchestrator built. Calls the provider, validates the reply against the named
 * schema, records the outcome on the row, and reports back. Decides nothing about the run.
 */
export class AgentCallService {
  constructor(
    private readonly ds: DataSource,
    private readonly producer: JobProducer,
  ) {}

  async execute(runId: string, callId: string): Promise<void> {
    const repo = this.ds.getRepository(AgentCallEntity);
    const call = await repo.findOneBy({ id: callId, runId });
    if (!call) throw new Error(`agent call ${callId} of run ${runId} does not exist`);
    if (call.status === 'queued' || call.status === 'running') {
      await repo.update({ id: callId }, { status: 'running', startedAt: new Date() });
      const outcome = await this.callProvider(call);
      // Conditional: a second delivery of the same job cannot overwrite a recorded outcome.
      await repo
        .createQueryBuilder()
        .update(AgentCallEntity)
        .set({ ...outcome, finishedAt: new Date() } as never)
        .where('id = :id AND status IN (:...open)', { id: callId, open: ['queued', 'running'] })
        .execute();
    }
    await this.producer.add('agent.done', { runId, callId }, { jobId: jobId(callId, 'done') });
  }

  private async callProvider(call: AgentCallEntity): Promise<Outcome> {
    const run = await this.ds.getRepository(RunEntity).findOneByOrFail({ id: call.runId });
    if (run.status === 'cancelled') {
      // Cancel stops between steps: a call not yet started is not sent (and not billed).
      return { status: 'failed', valid: null, error: 'the run was cancelled before this call started', errorCode: 'CANCELLED' };
    }
    const config = run.config as unknown as ProjectConfig;
    const providerCfg = config.providers[call.provider];
    if (!providerCfg) return { status: 'failed', valid: null, error: `provider "${call.provider}" is not in the run's config`, errorCode: 'PROVIDER_ERROR' };
    if (!call.schemaName || !isAgentSchemaName(call.schemaName)) {
      return { status: 'failed', valid: null, error: `unknown schema ${call.schemaName}`, errorCode: 'SCHEMA_UNKNOWN' };
    }
    const started = Date.now();
    let completion: Completion;
    try {
      const provider = createProvider(call.provider, providerCfg);
      completion = await withTimeout(
        provider.run({
          messages: call.messages,
          model: call.model,
          schemaName: call.schemaName,
          jsonSchema: agentJsonSchema(call.schemaName),
          maxTokens: call.maxTokens ?? 4096,
          temperature: call.temperature ?? 0.2,
          timeoutMs: call.timeoutMs ?? 180_000,
          role: call.role,
          ordinal: await this.ordinalOf(call),
        }),
        call.timeoutMs ?? 180_000,
      );
    } catch (e) {
      const err = e instanceof ProviderError ? e : new ProviderError('PROVIDER_ERROR', (e as Error).message);
      return { status: 'failed', valid: null, error: err.message, errorCode: err.code, latencyMs: Date.now() - started };
    }
    const recorded: Outcome = {
      status: 'completed',
      responseText: completion.text,
      parsed: completion.parsed as Record<string, unknown> | null,
      inputTokens: completion.usage.inputTokens,
      outputTokens: completion.usage.outputTokens,
      cachedInputTokens: completion.usage.cachedInputTokens,
      latencyMs: completion.latencyMs,
      requestId: completion.requestId,
      costUsd: completion.reportedCostUsd,
      costSource: completion.reportedCostUsd === null ? null : 'cli_estimate',
    };
    if (completion.parsed === null) {
      return { ...recorded, valid: false, errorCode: 'SCHEMA_INVALID', error: 'the reply is not a JSON object' };
    }
    const checked = AGENT_SCHEMAS[call.schemaName].safeParse(completion.parsed);
    return checked.success
      ? { ...recorded, valid: true, parsed: checked.data as Record<string, unknown> }
      : { ...recorded, valid: false, errorCode: 'SCHEMA_INVALID', error: formatZodIssues(checked.error) };
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
