import { AGENT_SCHEMAS, formatZodIssues, type AgentSchemaName } from '@roundtable/contracts';
import type { FinishedCallOf } from './call-types';
import type { AwaitedCall, CallSpec, EngineState, WorkflowDefinition } from './definition';
import { halt, markHalted, noteUnusableProvider, requestOrHalt, type ClosingStep } from './closing';
import { repeatCall, retryIfWorthIt } from './retries';

/**
 * Replies: is this the reply the run waits for (by pending call id), does it parse, and if
 * not: one repair call, then the role's fallback provider, then the workflow's own way of
 * giving up (a halt unless it says otherwise). Every try reports here: a transient failure
 * with retries left is tried again first (retries.ts), through the ledger like any call.
 */

export interface ReplyFailure {
  error: string;
  code: string | null;
}

export interface ReadReply {
  /** The reply parsed by its schema (with the schema's defaults), when it is usable. */
  parsed: unknown;
  failure: ReplyFailure | null;
}

/**
 * Does `call` answer the awaited call id? A retry is a call the engine queued, so it is the
 * awaited id itself; a reply listing earlier tries (stored before the engine retried) answers
 * through them too.
 */
export function answers(callId: string | undefined, call: Pick<FinishedCallOf<string, string>, 'id' | 'priorAttempts'>): boolean {
  // Stryker disable next-line ConditionalExpression: every caller passes a real call id (never empty), which no absent id can equal, so `false` is the same; `true` is pinned by every reply spec
  if (!callId) return false;
  return call.id === callId || (call.priorAttempts ?? []).some((p) => p.id === callId);
}

/**
 * The worker validated already; parsing again gives typed data with the schema's defaults.
 * `contextIssue` is what the schema alone cannot know (who is speaking, which round …).
 */
export function readReply(call: FinishedCallOf<string, string>, schema: AgentSchemaName, contextIssue?: (parsed: unknown) => string | null): ReadReply {
  if (call.status === 'failed' || call.valid === false) {
    return {
      parsed: undefined,
      failure: { error: call.error ?? '(no error text was recorded)', code: call.errorCode ?? (call.valid === false ? 'SCHEMA_INVALID' : null) },
    };
  }
  const result = AGENT_SCHEMAS[schema].safeParse(call.parsed);
  if (!result.success) return { parsed: undefined, failure: { error: formatZodIssues(result.error), code: 'SCHEMA_INVALID' } };
  const issue = contextIssue?.(result.data) ?? null;
  return { parsed: result.data, failure: issue ? { error: issue, code: 'SCHEMA_INVALID' } : null };
}

/**
 * The call's facts as events: each earlier try the provider-worker retried (its own row) as
 * agent_call_failed, then this try as agent_call_completed or agent_call_failed.
 */
export function emitCallFacts(step: ClosingStep<string>, call: FinishedCallOf<string, string>, label: string, reply: ReadReply, gist: () => string): void {
  const facts = { call_id: call.id, stage: call.stage, role: call.role, provider: call.provider, model: call.model, attempt: call.attempt, label };
  // A fork's copy says which call it copies, so a watcher does not count it as this run's usage.
  const copied = call.copiedFrom ? { copied_from: call.copiedFrom } : {};
  for (const prior of call.priorAttempts ?? []) {
    step.emit('agent_call_failed', { ...facts, call_id: prior.id, error: prior.error ?? '(no error text was recorded)', error_code: prior.errorCode });
  }
  const failure = reply.failure;
  if (call.status === 'failed') {
    step.emit('agent_call_failed', { ...facts, ...copied, error: failure!.error, error_code: failure!.code });
    return;
  }
  step.emit('agent_call_completed', {
    ...facts,
    valid: failure === null,
    input_tokens: call.usage?.inputTokens ?? null,
    output_tokens: call.usage?.outputTokens ?? null,
    cost_usd: call.usage?.costUsd ?? null,
    latency_ms: call.usage?.latencyMs ?? null,
    gist: failure ? failure.error.slice(0, 200) : gist(),
    ...copied,
  });
}

/** The one repair call (seed §10 #5): the same conversation, the bad reply, and the validation error. */
export function repairSpec<R extends string, G extends string, K extends string>(
  call: FinishedCallOf<R, G>,
  awaited: AwaitedCall<K>,
  schemaName: AgentSchemaName,
  error: string,
): CallSpec<R, G, K> {
  const previous = call.responseText ?? (call.parsed === undefined ? '' : JSON.stringify(call.parsed));
  return {
    role: call.role,
    kind: awaited.kind,
    stage: call.stage,
    label: awaited.label,
    labelFamily: null,
    messages: [
      ...call.messages,
      { role: 'assistant', content: previous ?? '' },
      { role: 'user', content: `Your reply did not match the schema: ${error}. Reply again with one JSON object that matches the schema.` },
    ],
    contextRefs: [call.id],
    attempt: call.attempt + 1,
    repairOf: call.id,
    provider: call.provider,
    model: call.model,
    schemaName,
  };
}

/**
 * Failures another provider need not share: this one's quota, key or model, or an outage that
 * outlasted the provider-worker's retries. A schema failure is the model's, and gets its repair.
 */
const FALLBACK_CODES: ReadonlySet<string> = new Set(['USAGE_LIMIT', 'AUTH', 'NOT_FOUND', 'RATE_LIMITED', 'SERVER_ERROR', 'NETWORK', 'TIMEOUT']);

/**
 * The same call (same messages, label and attempt) on the role's `fallback` provider, as a
 * recorded decision and a provider_fallback event. Once per call chain: a call already off
 * the role's own provider is the fallback, and its failure gives up like any other.
 */
export function fallbackSpec<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  call: FinishedCallOf<R, G>,
  awaited: AwaitedCall<K>,
  error: string,
  code: string | null,
): CallSpec<R, G, K> | null {
  const agent = def.agentOf(step.state.config as S['config'], call.role);
  const to = agent.fallback;
  if (!to || to === call.provider || call.provider !== agent.provider || code === 'SCHEMA_INVALID') return null;
  const retriesExhausted = (call.retry ?? 0) > 0;
  if (!retriesExhausted && !(code !== null && FALLBACK_CODES.has(code))) return null;
  const model = agent.fallback_model ?? call.model;
  const why = retriesExhausted ? ` after ${call.retry} ${call.retry === 1 ? 'retry' : 'retries'}` : '';
  const reason =
    `${call.role} call on ${call.provider}/${call.model} failed (${code ?? 'ERROR'})${why}: ${error}; ` +
    `asking the fallback provider ${to}/${model} instead`;
  const stage = step.state.stage;
  step.decisions.push({ from: stage, to: stage, reason, refs: [call.id] });
  step.emit('provider_fallback', { role: call.role, from: call.provider, to, reason });
  return repeatCall(call, awaited, def.replySchema(call, awaited), { provider: to, model });
}

/**
 * A finished call, once for every workflow: is it awaited (else it changes nothing), parse it,
 * record its facts, then the workflow's artifact — or, for an unusable reply, repair, fallback
 * or giving up.
 */
export function onReply<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  call: FinishedCallOf<R, G>,
): void {
  const awaited = def.awaited(step, call);
  if (!awaited) return;
  const reply = readReply(call, def.replySchema(call, awaited), def.contextIssue && ((parsed) => def.contextIssue!(step, call, awaited, parsed)));
  def.onLanded(step, call, awaited);
  emitCallFacts(step, call, awaited.label, reply, () => def.gist(step, call, awaited, reply.parsed));
  if (!reply.failure) return def.onArtifact(step, call, awaited, reply.parsed);
  if (call.status === 'failed') noteUnusableProvider(step.state, call.provider, reply.failure.code);
  if (retryIfWorthIt(step, def, call, awaited)) return;
  if (def.ownFailure?.(step, call, awaited, reply.failure)) return;
  onFailedReply(step, def, call, awaited, reply.failure);
}

/**
 * A reply that is not usable: repair once, then fall back, then give up. After a halt the
 * closing role's one call gets no repair: its failure closes fact-only.
 */
export function onFailedReply<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  call: FinishedCallOf<R, G>,
  awaited: AwaitedCall<K>,
  failure: ReplyFailure,
): void {
  const { error, code } = failure;
  const why = `${code ?? 'ERROR'}: ${error}`;
  const closing = call.role === def.closing.role;
  if (step.state.haltReason !== null) {
    // After a halt the closing role had its one call: no repair, no second try.
    if (closing) return def.factOnly(step, `the partial synthesis failed (${why})`);
    return def.afterHaltFailure(step, call, awaited, why);
  }
  const schema = code === 'SCHEMA_INVALID';
  if (schema && call.attempt === 1) return void requestOrHalt(step, def, [repairSpec(call, awaited, def.replySchema(call, awaited), error)]);
  const fallback = fallbackSpec(step, def, call, awaited, error, code);
  if (fallback) return void requestOrHalt(step, def, [fallback]);
  if (def.giveUp(step, call, awaited, why)) return;

  const reason = def.giveUpReason(call, awaited, failure, schema);
  if (closing) {
    markHalted(step, def.haltedStage, reason, [call.id]);
    return def.factOnly(step, `the ${def.closing.noun} failed, so no model wrote the ${def.closing.product}`);
  }
  halt(step, def, reason, { refs: [call.id] });
}
