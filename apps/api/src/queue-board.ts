import { Logger } from '@nestjs/common';
import type { BullBoardInstance } from '@bull-board/nestjs';
import { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { agentQueueName } from '@roundtable/contracts';
import { queuePrefix, type RedisClient } from '@roundtable/queues';
import { JobCardAdapter } from './job-card-adapter';

/**
 * The queues on Bull Board (@bull-board/nestjs's board instance), each with our job cards
 * (JobCardAdapter): the fixed queues @nestjs/bullmq registered for the api, and the
 * `agent.<provider>` queues. Those exist per provider name and appear as runs use new
 * providers, so no module can register them at start: they are discovered from agent_calls at
 * start and then on a timer, and added to the board without a restart.
 */
export class QueueBoard {
  private readonly log = new Logger('bull-board');
  private readonly agentQueues = new Map<string, Queue>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly board: BullBoardInstance,
    fixed: Queue[],
    private readonly ds: DataSource,
    private readonly connection: RedisClient,
    private readonly prefix: string,
    private readonly discoveryMs = 10_000,
  ) {
    for (const queue of fixed) board.addQueue(new JobCardAdapter(queue));
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch((e: Error) => this.log.warn(`agent queue discovery: ${e.message}`));
    }, this.discoveryMs);
    this.timer.unref();
  }

  /** Adds a board entry for every provider that has ever had an agent call. */
  async refresh(): Promise<void> {
    const rows: { provider: string }[] = await this.ds.query(`SELECT DISTINCT provider FROM agent_calls ORDER BY provider`);
    for (const { provider } of rows) this.addAgentQueue(agentQueueName(provider));
  }

  /** The agent queues it opened; the connection is shared, so closing a Queue leaves it open for the caller to end. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.agentQueues.values()].map((q) => q.close()));
    this.agentQueues.clear();
  }

  private addAgentQueue(name: string): void {
    if (this.agentQueues.has(name)) return;
    const queue = new Queue(name, { connection: this.connection, prefix: queuePrefix(this.prefix, name) });
    this.agentQueues.set(name, queue);
    this.board.addQueue(new JobCardAdapter(queue));
  }
}
