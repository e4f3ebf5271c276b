import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { CallOutcome } from '@roundtable/contracts';
import {
  ATTR_CALL_LABEL,
  ATTR_CALL_STATUS,
  ATTR_COST_SOURCE,
  ATTR_COST_USD,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  SPAN,
} from '@roundtable/observability';

/**
 * A recorded try on the agent call's span (started around the delivery by agentCallRoutes), in
 * GenAI's terms: the provider (the run config's provider name, as agent_calls.provider holds it),
 * the model, the tokens, and our own cost and its source; a failed try sets `error.type` to the
 * row's error_code and the span to ERROR. The same numbers the row holds. Nothing with tracing off.
 */
export function noteCallOnSpan(call: { provider: string; model: string; role: string; label: string | null }, outcome: CallOutcome): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.updateName(SPAN.agentCall(call.model));
  const attributes: Record<string, string | number> = {
    [ATTR_GEN_AI_PROVIDER_NAME]: call.provider,
    [ATTR_GEN_AI_REQUEST_MODEL]: call.model,
    [ATTR_GEN_AI_AGENT_NAME]: call.role,
    [ATTR_CALL_STATUS]: outcome.status,
  };
  if (call.label) attributes[ATTR_CALL_LABEL] = call.label;
  if (outcome.input_tokens != null) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = outcome.input_tokens;
  if (outcome.output_tokens != null) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = outcome.output_tokens;
  if (outcome.cached_input_tokens != null) attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = outcome.cached_input_tokens;
  if (outcome.cost_usd != null) attributes[ATTR_COST_USD] = Number(outcome.cost_usd);
  if (outcome.cost_source != null) attributes[ATTR_COST_SOURCE] = outcome.cost_source;
  if (outcome.request_id != null) attributes[ATTR_GEN_AI_RESPONSE_ID] = outcome.request_id;
  span.setAttributes(attributes);
  if (outcome.status === 'failed') {
    span.setAttribute(ATTR_ERROR_TYPE, outcome.error_code ?? 'PROVIDER_ERROR');
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? undefined });
  }
}
