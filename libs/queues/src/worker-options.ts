import { hostname } from 'node:os';
import type { WorkerOptions } from 'bullmq';
import type { QueueKind } from '@roundtable/contracts';
import { QUEUE_DEFAULTS } from './queue-defaults';

/**
 * BullMQ stores the worker's name on every job it takes (`processedBy`), so Bull Board and an
 * operator can tell which process ran, or is running, a job: host (the pod's name in Kubernetes) and pid.
 */
export const WORKER_NAME = `${hostname()}:${process.pid}`;

/**
 * What `@Processor(queue, workerOptionsFor(kind))` gives BullMQ's Worker: the kind's locks and
 * stalled-job recovery from QUEUE_DEFAULTS, the worker's name, and `autorun: false`. The worker
 * starts taking jobs only when the whole application is up (TypedProcessor's
 * onApplicationBootstrap), with the concurrency the service's environment asks for.
 */
export function workerOptionsFor(kind: QueueKind): Omit<Partial<WorkerOptions>, 'connection'> {
  return { ...QUEUE_DEFAULTS[kind].worker, name: WORKER_NAME, autorun: false };
}
