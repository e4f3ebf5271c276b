import type { DataSource } from 'typeorm';
import { isAgentSchemaName, toolsOfSchema, type OperatorPolicy } from '@roundtable/contracts';
import { PlaygroundCallEntity } from '@roundtable/persistence';
import { createProvider, priceCall, ProviderError, type PricingTable, type ProviderMessage } from '@roundtable/providers';
import { admittedProvider, checkedReply, jsonSchemaOf, replyOf } from './provider-request-parts';

export interface PlaygroundDeps {
  ds: DataSource;
  policy: OperatorPolicy;
  env: NodeJS.ProcessEnv;
  pricing: PricingTable;
}

type Outcome = Partial<Pick<PlaygroundCallEntity, 'responseText' | 'parsed' | 'valid' | 'error' | 'errorCode' | 'inputTokens' | 'outputTokens' | 'costUsd' | 'latencyMs'>> & { status: 'completed' | 'failed' };

/**
 * One playground call (issue 22): a run's call asked again as the person edited it, recorded on
 * its own playground_calls row and nowhere else — no agent_calls row, no usage, no event, no
 * report, nothing sent to the orchestrator. The provider entry is the run's, held to the
 * operator's policy here again before any key is read; the reply is validated against the
 * original call's schema, so the two can be compared. Claimed once: a redelivery finds the row
 * taken and does nothing.
 */
export async function runPlaygroundCall(deps: PlaygroundDeps, runId: string, id: string): Promise<void> {
  const claimed = (await deps.ds.query(`UPDATE playground_calls SET status = 'running' WHERE id = $1 AND run_id = $2 AND status = 'queued' RETURNING id`, [id, runId])) as unknown[][];
  if (!(claimed[0]?.length ?? claimed.length)) return;
  const row = await deps.ds.getRepository(PlaygroundCallEntity).findOneByOrFail({ id });
  const outcome = await ask(deps, row, runId);
  await deps.ds.getRepository(PlaygroundCallEntity).update({ id }, { ...outcome, finishedAt: new Date() } as never);
}

async function ask(deps: PlaygroundDeps, row: PlaygroundCallEntity, runId: string): Promise<Outcome> {
  const failed = (errorCode: string, error: string): Outcome => ({ status: 'failed', errorCode, error });
  const [run] = (await deps.ds.query(`SELECT config FROM runs WHERE id = $1`, [runId])) as { config: { providers?: Record<string, unknown> } }[];
  const stored = run?.config.providers?.[row.provider];
  if (stored === undefined) return failed('POLICY_REFUSED', `providers.${row.provider}: not a provider of the run's project`);
  const admitted = admittedProvider(row.provider, stored, row.model, deps.policy);
  if ('errorCode' in admitted) return failed(admitted.errorCode, admitted.error);
  if (!isAgentSchemaName(row.schemaName)) return failed('SCHEMA_UNKNOWN', `unknown schema ${row.schemaName}`);
  const tools = toolsOfSchema(row.schemaName);
  try {
    const provider = createProvider(row.provider, admitted.cfg, { env: deps.env, policy: deps.policy });
    const completion = await provider.run({
      messages: row.messages as unknown as ProviderMessage[],
      model: row.model,
      schemaName: row.schemaName,
      jsonSchema: jsonSchemaOf(row.schemaName),
      maxTokens: row.maxTokens,
      temperature: row.temperature,
      timeoutMs: row.timeoutMs,
      role: row.role,
      // Replay plays the role's first recorded reply (ordinals count from 0): the playground has no place in the run's order.
      ordinal: 0,
      ...(tools ? { tools } : {}),
    });
    const parsed = replyOf(completion, tools);
    const price = priceCall(deps.pricing, completion.model || row.model, completion.usage, completion.reportedCostUsd);
    const checked = checkedReply(row.schemaName, parsed);
    return {
      status: 'completed',
      responseText: completion.text,
      parsed: (checked.valid ? checked.parsed : (parsed ?? null)) as Record<string, unknown> | null,
      valid: checked.valid,
      error: checked.valid ? null : checked.error,
      errorCode: checked.valid ? null : checked.errorCode,
      inputTokens: completion.usage.inputTokens,
      outputTokens: completion.usage.outputTokens,
      costUsd: price.costUsd,
      latencyMs: completion.latencyMs,
    };
  } catch (e) {
    const err = e instanceof ProviderError ? e : new ProviderError('PROVIDER_ERROR', (e as Error).message);
    return failed(err.code, err.message);
  }
}
