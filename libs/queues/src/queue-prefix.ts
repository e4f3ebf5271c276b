/**
 * The BullMQ key prefix of one queue: the deployment's QUEUE_PREFIX, then the queue's name as a
 * Redis Cluster hash tag (`roundtable:{orchestrator}`, so its keys are `roundtable:{orchestrator}:orchestrator:wait`, …).
 * BullMQ's scripts touch several keys of a queue at once, which a cluster allows only when they hash
 * to one slot; the tag puts each queue in its own slot, so the queues spread over the masters
 * instead of all landing on one (a `{roundtable}` prefix would do that). Used the same way on a
 * single Redis, so there is one key layout, whatever REDIS_URL names. Every Queue and Worker of a
 * deployment is opened with this, or it would read and write keys nobody else does.
 */
export function queuePrefix(prefix: string, queueName: string): string {
  return `${prefix}:{${queueName}}`;
}
