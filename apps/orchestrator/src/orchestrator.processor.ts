import { Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { QUEUE, type JobName } from '@roundtable/contracts';
import { ATTR_JOB_NAME, ATTR_MESSAGING_MESSAGE_ID, ATTR_RUN_ID, ATTR_STEP_OUTCOME, inSpan, SPAN, type RoundtableMetrics } from '@roundtable/observability';
import { JobRoutes, TypedProcessor, workerOptionsFor } from '@roundtable/queues';
import type { OrchestratorStepService } from './orchestrator-step.service';
import { StaleJobError } from './job-to-event';

/**
 * Consumes the `orchestrator` queue: every job is one event for one run, applied by the step
 * service, which routes it through the run's workflow's job table (workflows/). The table here
 * only says that every orchestrator job is such a step.
 */
const log = new Logger('orchestrator');

@Processor(QUEUE.orchestrator, workerOptionsFor('orchestrator'))
export class OrchestratorProcessor extends TypedProcessor {
  constructor(steps: OrchestratorStepService, settings: { concurrency: number; metrics?: RoundtableMetrics }) {
    const apply = (name: JobName) => async (payload: { runId: string }, job: Job) => {
      try {
        // The step's span, a child of the span that enqueued the job (JobRoutes restores its context).
        const attributes = { [ATTR_RUN_ID]: payload.runId, [ATTR_JOB_NAME]: name, [ATTR_MESSAGING_MESSAGE_ID]: job.id ?? '' };
        const outcome = await inSpan(SPAN.step(name), attributes, async (span) => {
          const applied = await steps.apply(name, payload as Record<string, unknown> & { runId: string }, job.id);
          span.setAttribute(ATTR_STEP_OUTCOME, applied);
          return applied;
        });
        if (outcome !== 'applied') log.debug(`${name} for ${payload.runId}: ${outcome}`);
      } catch (e) {
        if (e instanceof StaleJobError) log.warn(e.message);
        throw e; // BullMQ records and retries; the inbox makes the retry safe
      }
    };
    super(
      new JobRoutes('orchestrator', QUEUE.orchestrator, {
        'run.start': apply('run.start'),
        'agent.done': apply('agent.done'),
        'workspace.done': apply('workspace.done'),
        'tests.done': apply('tests.done'),
        'run.resume': apply('run.resume'),
        'run.cancel': apply('run.cancel'),
        'run.appeal': apply('run.appeal'),
        'run.halt': apply('run.halt'),
        'run.approve': apply('run.approve'),
        'run.answer': apply('run.answer'),
      }),
      { service: 'orchestrator', ...settings },
    );
  }
}
