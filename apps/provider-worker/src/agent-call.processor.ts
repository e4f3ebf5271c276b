import { Processor } from '@nestjs/bullmq';
import { Logger, type Type } from '@nestjs/common';
import { SpanKind } from '@opentelemetry/api';
import { agentQueueName } from '@roundtable/contracts';
import { ATTR_CALL_ID, ATTR_GEN_AI_OPERATION_NAME, ATTR_RUN_ID, GEN_AI_OPERATION_NAME_VALUE_CHAT, inSpan, SPAN } from '@roundtable/observability';
import { JobRoutes, queuePrefix, TypedProcessor, workerOptionsFor, type JobProducer, type TypedProcessorSettings } from '@roundtable/queues';
import type { AgentCallService } from './agent-call.service';

const log = new Logger('provider-worker');

/**
 * The handler table of one provider's `agent.<provider>` queue: each job is one try of one call,
 * run and recorded by the AgentCallService, which reports it (agent.done) whatever its outcome; a
 * retry is a new call the orchestrator's engine queues, delayed.
 *
 * After a 429 the whole queue backs off (BullMQ's manual rate limit), so every call to that
 * provider waits, not just this one; the try's retry is enqueued delayed by the same retry-after.
 */
export function agentCallRoutes(provider: string, calls: AgentCallService, producer: JobProducer): JobRoutes {
  const queueName = agentQueueName(provider);
  return new JobRoutes('agent', queueName, {
    'agent.call': async (p) => {
      // The call's span (GenAI's client span, named and filled in when the try is recorded: agent-call-span.ts).
      const attributes = { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT, [ATTR_RUN_ID]: p.runId, [ATTR_CALL_ID]: p.callId };
      const result = await inSpan(SPAN.agentCall(), attributes, () => calls.execute(p.runId, p.callId), SpanKind.CLIENT);
      if (result.rateLimitMs == null) return;
      log.warn(`${p.callId}: rate limited by the provider, queue ${queueName} backs off ${result.rateLimitMs} ms`);
      await producer.queue(queueName).rateLimit(result.rateLimitMs);
    },
    'playground.call': (p) => calls.playground(p.runId, p.playgroundId),
  });
}

/** Consumes one provider's queue; its concurrency and rate limit are read at start (`atStart`). */
export abstract class AgentCallProcessor extends TypedProcessor {
  constructor(provider: string, calls: AgentCallService, producer: JobProducer, settings: Omit<TypedProcessorSettings, 'service'>) {
    super(agentCallRoutes(provider, calls, producer), { service: 'provider-worker', ...settings });
  }

  protected override failedLine(job: { data?: { callId?: string } } | undefined, err: Error): string {
    return `agent call ${job?.data?.callId} failed: ${err.message}`;
  }
}

/**
 * The @Processor class of `agent.<provider>`: @nestjs/bullmq finds processors by class, one
 * queue each, and the provider names come from PROVIDER_QUEUES, so the class is made per name.
 * No module registers an agent queue, so its worker would take the root's bare QUEUE_PREFIX: the
 * queue's own hash-tagged prefix (queuePrefix) is given here, as the producer's is.
 */
export function agentCallProcessorFor(provider: string, prefix: string): Type<AgentCallProcessor> {
  const queue = agentQueueName(provider);
  @Processor(queue, { ...workerOptionsFor('agent'), prefix: queuePrefix(prefix, queue) })
  class ProviderQueueProcessor extends AgentCallProcessor {}
  Object.defineProperty(ProviderQueueProcessor, 'name', { value: `AgentCallProcessor(${provider})` });
  return ProviderQueueProcessor;
}
