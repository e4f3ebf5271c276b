import type { FinishedCallOf } from './call-types';
import type { AwaitedCall, CallSpec, EngineState, WorkflowDefinition } from './definition';
import { halt, type ClosingStep } from './closing';
import { queueCalls } from './ledger';

/**
 * Transient retries are the engine's decision (issue 13 item 2). The provider-worker records a
 * failed try and reports it, with its verdict (retryable or not) and the provider's retry-after;
 * the engine asks for the same call again like any other call: through the ledger, checked
 * against recorded usage plus every reservation and reserved worst case, and enqueued after a
 * delay. A retry is a call: it counts against max_calls and the provider's caps (each try is a row).
 */

/** The backoff before the 1st, 2nd and 3rd retry when the orchestrator is told none (PROVIDER_RETRY_DELAYS_MS). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [3000, 9000, 27000];

/** The delay before retry number `retriesSoFar + 1`, or null when the try is not retried (not retryable, or none left). */
export function retryDelay(call: Pick<FinishedCallOf<string, string>, 'status' | 'retryable' | 'retry' | 'retryAfterMs'>, delaysMs: readonly number[]): number | null {
  const retriesSoFar = call.retry ?? 0;
  if (call.status !== 'failed' || !call.retryable || retriesSoFar >= delaysMs.length) return null;
  const hinted = call.retryAfterMs != null && Number.isFinite(call.retryAfterMs) ? call.retryAfterMs : null;
  return Math.max(0, Math.round(hinted ?? delaysMs[retriesSoFar]));
}

/**
 * The same question again (same messages, label and attempt), for a retry of the failed try or
 * for the role's fallback provider: `to` says which provider and model, and the retry's number.
 */
export function repeatCall<R extends string, G extends string, K extends string>(
  call: FinishedCallOf<R, G>,
  awaited: AwaitedCall<K>,
  schemaName: CallSpec<R, G, K>['schemaName'],
  to: { provider: string; model: string; retry?: CallSpec<R, G, K>['retry'] },
): CallSpec<R, G, K> {
  return {
    role: call.role,
    kind: awaited.kind,
    stage: call.stage,
    label: awaited.label,
    labelFamily: null,
    messages: call.messages,
    contextRefs: [call.id],
    attempt: call.attempt,
    repairOf: null,
    provider: to.provider,
    model: to.model,
    schemaName,
    // Stryker disable next-line ConditionalExpression: `retry: undefined` is no retry (enqueue reads `spec.retry`), so `true` is the same; `false` is pinned by the retry specs
    ...(to.retry ? { retry: to.retry } : {}),
  };
}

/** Retry n+1 of the failed try, on the same provider and model. */
export function retrySpec<R extends string, G extends string, K extends string>(
  call: FinishedCallOf<R, G>,
  awaited: AwaitedCall<K>,
  schemaName: CallSpec<R, G, K>['schemaName'],
  delayMs: number,
): CallSpec<R, G, K> {
  return repeatCall(call, awaited, schemaName, { provider: call.provider, model: call.model, retry: { n: (call.retry ?? 0) + 1, of: call.id, delayMs } });
}

/**
 * A failed try the provider-worker called retryable, with retries left: its retry is queued
 * (true), or the budget refused it. Refused before a halt, the run halts as for any refused
 * call (true: handled). After a halt a retry is never exempt: refused, the failure is handled
 * as a final one (false), so the closing role still gets exactly one call over budget.
 */
export function retryIfWorthIt<S extends EngineState<G>, R extends string, G extends string, K extends string, St extends ClosingStep<G>>(
  step: St,
  def: WorkflowDefinition<S, R, G, K, St>,
  call: FinishedCallOf<R, G>,
  awaited: AwaitedCall<K>,
): boolean {
  // After a halt only the closing role's reply still matters: another role's late try is not asked again.
  if (step.state.haltReason !== null && call.role !== def.closing.role) return false;
  const delayMs = retryDelay(call, step.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS);
  if (delayMs === null) return false;
  const refusal = queueCalls(step, def, [retrySpec(call, awaited, def.replySchema(call, awaited), delayMs)]);
  if (!refusal) return true;
  if (step.state.haltReason !== null) return false;
  halt(step, def, refusal.reason, { refs: [refusal.cap] });
  return true;
}
