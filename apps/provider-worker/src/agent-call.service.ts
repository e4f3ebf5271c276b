import { UnrecoverableError } from 'bullmq';
import type { DataSource, EntityManager } from 'typeorm';
import {
  type CallOutcome,
  isAgentSchemaName,
  jobId,
  JudgeRole,
  type OperatorPolicy,
  ProjectConfig,
  ProviderConfig,
  readOperatorPolicy,
  toolsOfSchema,
} from '@roundtable/contracts';
import { AgentCallEntity, preparedQuery, RECORD_CALL_OUTCOME, runStatement } from '@roundtable/persistence';
import { Completion, createProvider, cliUserFor, priceCall, ProviderError, type CliUserDecision, type PricingTable, type ProviderRequest } from '@roundtable/providers';
import type { JobProducer } from '@roundtable/queues';
import { noteCallOnSpan } from './agent-call-span';
import { runAgentModeEngineer } from './agent-mode-engineer';
import { DebateTurnPreview, type LiveEventSink } from './debate-turn-preview';
import { failedTryReport, recordedError } from './retry-policy';
import { storableJson, storableText } from './storable-text';
import { admittedProvider, checkedReply, jsonSchemaOf, replyOf } from './provider-request-parts';
import { runPlaygroundCall } from './playground-call';

type Outcome = Partial<AgentCallEntity> & { status: 'completed' | 'failed' };

/**
 * The columns of an agent_calls row, by writer (one writer a column):
 * - the orchestrator's step writer INSERTs the row: id, run_id, seq, stage, role, provider,
 *   model, label, attempt, repair_of, retry, retry_of, prompt_hash, messages, context_refs,
 *   schema_name, max_tokens, temperature, timeout_ms (and its budget_reservations row);
 * - this worker's claim writes status = 'running' and started_at;
 * - the outcome columns (CALL_OUTCOME_COLUMNS: status, valid, parsed, response_text, error,
 *   error_code, tokens, cost, latency, request_id, billing, argv, response_escaped, retryable,
 *   retry_after_ms, finished_at) are written once, while the row is open, by whichever comes
 *   first of this worker and the orchestrator's settle (from the copy agent.done carries):
 *   the same outcome either way, so it has one author, the try itself.
 * The worker never locks a run, never writes a reservation and never inserts a row: a retry is
 * the engine's decision (libs/workflow/src/engine/retries.ts).
 */

/**
 * The row's outcome columns for an Outcome: every one present, null where the try has no value.
 * The reply's text is made storable (storable-text.ts) here, the one place an outcome is built,
 * so a reply Postgres cannot hold is still recorded once and never asked for again.
 */
function callOutcomeOf(o: Outcome, finishedAt: Date): CallOutcome {
  const parsed = storableJson(o.parsed ?? null);
  const text = storableText(o.responseText ?? '');
  const error = storableText(o.error ?? '');
  const escaped = parsed.escaped || text.escaped || error.escaped;
  return {
    status: o.status,
    valid: o.valid ?? null,
    parsed: parsed.value,
    response_text: o.responseText == null ? null : text.value,
    error: o.error == null ? null : error.value,
    error_code: o.errorCode ?? null,
    input_tokens: o.inputTokens ?? null,
    output_tokens: o.outputTokens ?? null,
    cached_input_tokens: o.cachedInputTokens ?? null,
    cost_usd: o.costUsd ?? null,
    cost_source: o.costSource ?? null,
    latency_ms: o.latencyMs ?? null,
    request_id: o.requestId ?? null,
    billing: o.billing ?? null,
    argv: o.argv ?? null,
    response_escaped: escaped || (o.responseText != null ? false : null),
    retryable: o.retryable ?? null,
    retry_after_ms: o.retryAfterMs ?? null,
    finished_at: finishedAt.toISOString(),
  };
}

type AgentConfig = ProjectConfig['agents'][keyof ProjectConfig['agents']];

/** A call claimed for this delivery, with what calling it needs from its run. */
interface ClaimedCall {
  call: AgentCallEntity;
  runStatus: string;
  /** The run config's entry for the call's provider; null when the config has none. */
  providerCfg: ProviderConfig | null;
  /** The run config's entry for the call's role. */
  agent: AgentConfig | undefined;
  /**
   * Replay plays replies in order per role: this call's position among the run's calls of that
   * role (and provider). Only first tries count, up to the first try of this call's chain: a
   * retried or interrupted try asks the question its chain asked, and gets the same reply.
   */
  ordinal: number;
}

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
  /**
   * The engine's backoff before each transient retry (PROVIDER_RETRY_DELAYS_MS, the same list
   * the orchestrator reads): here only to know how long a 429 without retry-after holds the
   * provider's queue back, and whether a retry will come at all.
   */
  retryDelaysMs: readonly number[];
  pricing: PricingTable;
  /** Where adapters read API keys and CLI binaries (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  /** The test-runner's workspace volume, mounted here too: needed only by an engineer in agent mode. */
  workspaceRoot?: string;
  /**
   * The operator's policy, checked again on every call's provider entry before anything is sent
   * (a row written around the api is refused here too). Default: this process's, readOperatorPolicy().
   */
  policy?: OperatorPolicy;
  /** Told of every try this delivery recorded (the call counters); never fails a call. */
  onRecorded?: (tried: RecordedTry) => void;
  /**
   * Where a judge's debate turn is previewed as it streams (debate_token_delta on the run's
   * channel, never stored). Absent: no call is streamed, every turn arrives whole.
   */
  liveEvents?: LiveEventSink;
  /** Told when a preview could not be published (the call goes on without it). */
  onLiveEventError?: (e: Error) => void;
}

/** A try this delivery recorded: the provider and model it was asked of, and its outcome. */
export interface RecordedTry {
  provider: string;
  model: string;
  outcome: CallOutcome;
}

/** A try found still `running` by a redelivery: failed as INTERRUPTED, reported retryable like a network failure. */
function interruptedTry(): { outcome: Outcome; error: ProviderError } {
  const error = new ProviderError(
    'INTERRUPTED',
    'interrupted: the provider-worker running this call stopped before recording a reply (the job was delivered again)',
    true,
  );
  return { outcome: { status: 'failed', valid: null, error: error.message, errorCode: error.code, retryable: true }, error };
}

/**
 * The job is finished (agent.done sent). `rateLimitMs`: the try hit a 429, and the whole
 * provider queue backs off that long (the engine's retry is enqueued with the same delay).
 */
export interface ExecuteResult {
  kind: 'done';
  callId: string;
  rateLimitMs?: number;
}

/**
 * Runs one queued agent call: the row already holds the exact messages, model, schema and
 * limits the orchestrator built. Calls the provider, validates the reply against the named
 * schema, prices it, records the outcome on the row, and reports back with agent.done. A
 * failed try is reported like any other, with whether it is worth asking again and the
 * provider's retry-after: the orchestrator's engine decides the retry (a new call it queues,
 * budget-checked). Decides nothing about the run.
 *
 * Each try is its own job (the engine queues a retry as a call of its own), so a job names
 * exactly the row it works on.
 */
export class AgentCallService {
  private readonly env: NodeJS.ProcessEnv;
  readonly policy: OperatorPolicy;
  /** Which user CLI children run as (or why they are refused): fixed for this process. */
  readonly cliUser: CliUserDecision;

  constructor(
    private readonly ds: DataSource,
    private readonly producer: JobProducer,
    private readonly opts: AgentCallOptions,
  ) {
    this.env = opts.env ?? process.env;
    this.policy = opts.policy ?? readOperatorPolicy().policy;
    this.cliUser = cliUserFor(this.policy, process.getuid?.() ?? 0);
  }

  /** A call tried again in the playground: its own row, outside the run (playground-call.ts). */
  playground(runId: string, playgroundId: string): Promise<void> {
    return runPlaygroundCall({ ds: this.ds, policy: this.policy, env: this.env, pricing: this.opts.pricing }, runId, playgroundId);
  }

  async execute(runId: string, callId: string): Promise<ExecuteResult> {
    // The usual delivery names a queued call: claimed in one statement.
    const claimed = await this.claim(runId, callId);
    let call: AgentCallEntity;
    if (claimed) {
      call = claimed.call;
    } else {
      const found = await this.ds.getRepository(AgentCallEntity).findOneBy({ id: callId, runId });
      // Permanent: no retry makes the row exist (BullMQ fails the job at once).
      if (!found) throw new UnrecoverableError(`agent call ${callId} of run ${runId} does not exist`);
      call = found;
      if (call.status !== 'running') {
        // A redelivery of a settled try: the row has the outcome.
        await this.producer.add('agent.done', { runId, callId: call.id }, { jobId: jobId(call.id, 'done') });
        return { kind: 'done', callId: call.id };
      }
      // Delivered again while the try is still `running`: the worker running it died (or lost
      // its lock). The try is recorded INTERRUPTED and reported retryable, like a network
      // failure, instead of asking the provider a second time under the same row: the engine
      // retries it as a new call if the budget allows.
    }

    const tried = claimed ? await this.callProvider(claimed) : interruptedTry();
    const report = tried.error ? failedTryReport(tried.error, call.retry, this.opts.retryDelaysMs) : null;
    if (report) Object.assign(tried.outcome, { retryable: report.retryable, retryAfterMs: report.retryAfterMs });
    const outcome = callOutcomeOf(tried.outcome, new Date());
    // The outcome is written to the row and sent with agent.done at once, so the orchestrator's
    // step does not wait for this write (it writes the same outcome if the row is still open
    // when it gets there). If another delivery found this try interrupted and recorded it
    // first, the row keeps that outcome. Either way the provider was asked, so it is counted.
    await Promise.all([
      this.record(this.ds.manager, call.id, outcome),
      this.producer.add('agent.done', { runId, callId: call.id, outcome }, { jobId: jobId(call.id, 'done') }),
    ]);
    this.recorded(call, outcome);
    return report?.rateLimitMs != null ? { kind: 'done', callId: call.id, rateLimitMs: report.rateLimitMs } : { kind: 'done', callId: call.id };
  }

  /**
   * A judge's debate turn (the panel's DEBATE calls: a DebateTurn reply, a judge's role) is
   * previewed as it streams; every other call is asked whole, as before. The speaker is the
   * call's role (the workflow holds the reply's speaker to it); the round is the reply's own.
   */
  private previewOf(call: AgentCallEntity): DebateTurnPreview | null {
    const sink = this.opts.liveEvents;
    if (!sink || call.schemaName !== 'DebateTurn') return null;
    const speaker = JudgeRole.safeParse(call.role);
    if (!speaker.success) return null;
    return new DebateTurnPreview({ runId: call.runId, speaker: speaker.data }, sink, { onError: this.opts.onLiveEventError });
  }

  private recorded(call: AgentCallEntity, outcome: CallOutcome): void {
    noteCallOnSpan(call, outcome);
    try {
      this.opts.onRecorded?.({ provider: call.provider, model: call.model, outcome });
    } catch {
      // counters only: a failing observer must not fail a call already recorded
    }
  }

  /**
   * Marks a queued call `running` and reads, in the same statement,
   * what calling it needs: the row, the run's status (a cancelled run's calls are not sent),
   * the run config's entries for this provider and role (not the whole config), and the
   * replay ordinal. Null when the call is not open (finished, or not this run's).
   *
   * Committed with synchronous_commit off (set_config(..., true) lasts for this statement's
   * own transaction): the mark is re-derivable. If a database crash loses it, the row is still
   * `queued`: a redelivery claims it again (and the outcome UPDATE accepts either), so only the
   * started_at of that try is lost. A `running` row found by a redelivery is an interrupted try.
   * The outcome itself is committed durably (by this worker, or by the orchestrator from the
   * copy agent.done carries).
   */
  private async claim(runId: string, callId: string): Promise<ClaimedCall | null> {
    const { rows } = await preparedQuery<
      Record<string, unknown> & { __runStatus: string; __providerCfg: ProviderConfig | null; __agent: AgentConfig | null; __ordinal: string }
    >(
      this.ds,
      `WITH claimed AS (
         UPDATE agent_calls SET status = 'running', started_at = now()
           FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
          WHERE agent_calls.id = $1 AND agent_calls.run_id = $2 AND agent_calls.status = 'queued'
         RETURNING agent_calls.*
       )
       SELECT ${this.callColumns()}, r.status AS "__runStatus",
              r.config -> 'providers' -> claimed.provider AS "__providerCfg",
              r.config -> 'agents' -> claimed.role AS "__agent",
              (SELECT count(*) FROM agent_calls c
                WHERE c.run_id = claimed.run_id AND c.role = claimed.role AND c.provider = claimed.provider AND c.retry = 0
                  AND c.seq < (WITH RECURSIVE chain (retry_of, seq) AS (
                                 SELECT claimed.retry_of, claimed.seq
                                 UNION ALL
                                 SELECT a.retry_of, a.seq FROM agent_calls a JOIN chain ON a.id = chain.retry_of
                               )
                               SELECT min(seq) FROM chain)) AS "__ordinal"
         FROM claimed JOIN runs r ON r.id = claimed.run_id`,
      [callId, runId],
    );
    if (!rows.length) return null;
    const { __runStatus, __providerCfg, __agent, __ordinal, ...fields } = rows[0];
    const call = new AgentCallEntity();
    for (const c of this.ds.getMetadata(AgentCallEntity).columns) {
      const v = fields[c.propertyName];
      (call as unknown as Record<string, unknown>)[c.propertyName] = c.transformer && !Array.isArray(c.transformer) ? c.transformer.from(v) : v;
    }
    return { call, runStatus: __runStatus, providerCfg: __providerCfg, agent: __agent ?? undefined, ordinal: Number(__ordinal) };
  }

  private columns?: string;
  /** `claimed."column" AS "property"` for every agent_calls column, so the row maps onto the entity. */
  private callColumns(): string {
    this.columns ??= this.ds
      .getMetadata(AgentCallEntity)
      .columns.map((c) => `claimed."${c.databaseName}" AS "${c.propertyName}"`)
      .join(', ');
    return this.columns;
  }

  /** Conditional: a second delivery of the same job cannot overwrite a recorded outcome. */
  private async record(em: EntityManager, callId: string, outcome: CallOutcome): Promise<boolean> {
    const { rowCount: affected } = await runStatement(em, RECORD_CALL_OUTCOME, callId, outcome);
    return affected > 0;
  }

  private async callProvider(claimed: ClaimedCall): Promise<{ outcome: Outcome; error: ProviderError | null }> {
    const { call, providerCfg, agent } = claimed;
    const failed = (errorCode: string, error: string): { outcome: Outcome; error: null } => ({
      outcome: { status: 'failed', valid: null, error, errorCode },
      error: null,
    });
    if (claimed.runStatus === 'cancelled') {
      // Cancel stops between steps: a call not yet started is not sent (and not billed).
      return failed('CANCELLED', 'the run was cancelled before this call started');
    }
    if (!providerCfg) return failed('PROVIDER_ERROR', `provider "${call.provider}" is not in the run's config`);
    const admitted = admittedProvider(call.provider, providerCfg, call.model, this.policy);
    if ('errorCode' in admitted) return failed(admitted.errorCode, admitted.error);
    const checkedCfg = admitted.cfg;
    if (!call.schemaName || !isAgentSchemaName(call.schemaName)) return failed('SCHEMA_UNKNOWN', `unknown schema ${call.schemaName}`);
    const timeoutMs = call.timeoutMs ?? 180_000;
    // A tool loop's turn (an agent-mode engineer on an API provider): the tools its schema names.
    const tools = toolsOfSchema(call.schemaName);
    const started = Date.now();
    let completion: Completion;
    let preview: DebateTurnPreview | null = null;
    try {
      const provider = createProvider(call.provider, checkedCfg, { env: this.env, policy: this.policy });
      const request: ProviderRequest = {
        messages: call.messages,
        model: call.model,
        schemaName: call.schemaName,
        jsonSchema: jsonSchemaOf(call.schemaName),
        maxTokens: call.maxTokens ?? 4096,
        temperature: call.temperature ?? 0.2,
        timeoutMs,
        maxTurns: agent?.max_turns,
        effort: agent?.effort,
        role: call.role,
        ordinal: claimed.ordinal,
      };
      if (tools) request.tools = tools;
      // An engineer in agent mode on a CLI edits the run's worktree itself; its Implementation is what git saw change.
      const agentMode = call.role === 'engineer' && agent?.mode === 'agent' && !tools;
      preview = this.previewOf(call);
      if (preview) request.onDelta = preview.push;
      completion = await withTimeout(
        agentMode
          ? runAgentModeEngineer(this.ds, provider, this.opts.workspaceRoot, { runId: call.runId, callId: call.id, label: call.label, request }, this.cliUser)
          : provider.run(request),
        timeoutMs + BACKSTOP_MS,
      );
      // Every delta is on the channel before the outcome is reported (and so before the whole turn).
      await preview?.finish();
    } catch (e) {
      await preview?.cancel();
      const err = e instanceof ProviderError ? e : new ProviderError('PROVIDER_ERROR', (e as Error).message);
      return {
        outcome: { status: 'failed', valid: null, error: recordedError(err), errorCode: err.code, latencyMs: Date.now() - started },
        error: err,
      };
    }
    const parsed = replyOf(completion, tools);
    const price = priceCall(this.opts.pricing, completion.model || call.model, completion.usage, completion.reportedCostUsd);
    const recorded: Outcome = {
      status: 'completed',
      responseText: completion.text,
      parsed: parsed as Record<string, unknown> | null,
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
    return { outcome: { ...recorded, ...checkedReply(call.schemaName, parsed) }, error: null };
  }

}
