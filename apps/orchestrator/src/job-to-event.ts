import { UnrecoverableError } from 'bullmq';
import { isAgentSchemaName } from '@roundtable/contracts';
import type { SettledCallRow } from './sql/settle-finished-call.sql';
import type { FinishedCall } from '@roundtable/workflow';

export class StaleJobError extends Error {}

/** The workflow event for a call settled by SETTLE_FINISHED_CALL (its row, or undefined when there is none). */
export function finishedCallEvent(runId: string, callId: string, settled: object | undefined): { type: 'agent_call_finished'; call: FinishedCall } {
  const call = settled as SettledCallRow | undefined;
  // Permanent (UnrecoverableError): no retry makes the row exist. A call not finished yet is a StaleJobError, retried.
  if (!call) throw new UnrecoverableError(`agent call ${callId} of run ${runId} does not exist`);
  if (call.status !== 'completed' && call.status !== 'failed') {
    throw new StaleJobError(`agent call ${call.id} is ${call.status}, not finished`);
  }
  const finished: FinishedCall = {
    id: call.id,
    role: call.role as FinishedCall['role'],
    stage: call.stage as FinishedCall['stage'],
    label: call.label,
    attempt: call.attempt,
    retry: call.retry,
    priorAttempts: call.prior,
    retryable: call.retryable ?? false,
    retryAfterMs: call.retry_after_ms,
    provider: call.provider,
    model: call.model,
    status: call.status as FinishedCall['status'],
    valid: call.valid,
    parsed: call.parsed,
    responseText: call.response_text,
    error: call.error,
    errorCode: call.error_code,
    schemaName: call.schema_name && isAgentSchemaName(call.schema_name) ? call.schema_name : null,
    messages: call.messages,
    ...(call.copied_from ? { copiedFrom: call.copied_from } : {}),
    usage: {
      inputTokens: call.input_tokens,
      outputTokens: call.output_tokens,
      costUsd: call.cost_usd === null ? null : Number(call.cost_usd),
      latencyMs: call.latency_ms,
    },
  };
  return { type: 'agent_call_finished', call: finished };
}
