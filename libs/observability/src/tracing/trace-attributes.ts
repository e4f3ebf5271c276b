/**
 * Every span attribute name Roundtable writes, in one place.
 *
 * The GenAI and messaging names are still "incubating" in @opentelemetry/semantic-conventions
 * (1.45.0, pinned in package.json). Its README advises against importing
 * `@opentelemetry/semantic-conventions/incubating` in runtime code, since that entry point may
 * break in a minor release, and says to copy the definitions you use into your own code instead.
 * That is what this file does; trace-attributes.spec.ts checks each copy against the package
 * (at test time only), so a bump of the package that renames one fails there, not in a trace.
 * The stable names are imported as the package exports them.
 */
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';

export { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE };

// GenAI (incubating: copied, see above).
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_OPERATION_NAME_VALUE_CHAT = 'chat';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';

// Messaging (incubating: copied): which queue and job a span handles.
export const ATTR_MESSAGING_SYSTEM = 'messaging.system';
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
export const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id';

// Our own, under `roundtable.`.
export const ATTR_RUN_ID = 'roundtable.run.id';
export const ATTR_JOB_NAME = 'roundtable.job.name';
export const ATTR_WORKFLOW = 'roundtable.workflow';
export const ATTR_STAGE_BEFORE = 'roundtable.stage.before';
export const ATTR_STAGE_AFTER = 'roundtable.stage.after';
export const ATTR_STEP_OUTCOME = 'roundtable.step.outcome';
export const ATTR_CALL_ID = 'roundtable.call.id';
export const ATTR_CALL_LABEL = 'roundtable.call.label';
export const ATTR_CALL_STATUS = 'roundtable.call.status';
/** USD the call cost, as the provider-worker priced it (agent_calls.cost_usd). */
export const ATTR_COST_USD = 'roundtable.cost_usd';
/** Where that price came from (agent_calls.cost_source: reported by the provider, the pricing table, …). */
export const ATTR_COST_SOURCE = 'roundtable.cost_source';
export const ATTR_OP_ID = 'roundtable.op.id';
export const ATTR_SANDBOX_RUNNER = 'roundtable.sandbox.runner';
export const ATTR_SANDBOX_EXIT_CODE = 'roundtable.sandbox.exit_code';
export const ATTR_SANDBOX_TIMED_OUT = 'roundtable.sandbox.timed_out';
export const ATTR_TESTS_PASSED = 'roundtable.tests.passed';
export const ATTR_TESTS_FAILED = 'roundtable.tests.failed';

/** BullMQ is no value of messaging.system's enumeration; the convention allows one of our own. */
export const MESSAGING_SYSTEM_VALUE_BULLMQ = 'bullmq';

/** Span names (a low-cardinality prefix and what varies after it). */
export const SPAN = {
  step: (job: string) => `roundtable.step ${job}`,
  /** GenAI's own rule: `{operation} {model}`. */
  agentCall: (model?: string) => (model ? `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${model}` : GEN_AI_OPERATION_NAME_VALUE_CHAT),
  workspaceOp: (job: string) => `roundtable.workspace ${job}`,
  sandboxRun: 'roundtable.sandbox.run',
} as const;
