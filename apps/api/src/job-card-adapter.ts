import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { QueueAdapterOptions } from '@bull-board/api/typings/app';
import type { Queue } from 'bullmq';
import { jobCardName } from './job-card';

/** What a queue is for, beside its name on the board. */
const QUEUE_PURPOSE: Record<string, string> = {
  orchestrator: 'run steps',
  workspace: 'workspace ops',
  tests: 'test runs',
};

/** The board's title of a queue: its name (a Redis key) and what it carries. */
export function queueDisplayName(queueName: string): string {
  const purpose = QUEUE_PURPOSE[queueName] ?? (queueName.startsWith('agent.') ? `calls to ${queueName.slice('agent.'.length)}` : undefined);
  return purpose ? `${queueName} · ${purpose}` : queueName;
}

/**
 * Bull Board's BullMQ adapter with our job cards (jobCardName) and queue titles. A class, not
 * options: @bull-board/nestjs's forFeature builds the adapter itself, and a formatter is set on
 * the adapter instance.
 */
export class JobCardAdapter extends BullMQAdapter {
  constructor(queue: Queue, options: Partial<QueueAdapterOptions> = {}) {
    super(queue, { displayName: queueDisplayName(queue.name), ...options });
    this.setFormatter('name', (job) => jobCardName(job));
  }
}
