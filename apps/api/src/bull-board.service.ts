import { Logger } from '@nestjs/common';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { agentQueueName, QUEUE } from '@roundtable/contracts';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board over every queue of this deployment. Agent queues exist per provider name and
 * appear as runs use new providers, so they are discovered from agent_calls at start and
 * then on a timer, and added to the board without a restart.
 */
export class BullBoardService {
  private readonly log = new Logger('bull-board');
  private readonly serverAdapter = new ExpressAdapter().setBasePath(BULL_BOARD_PATH);
  private readonly board: ReturnType<typeof createBullBoard>;
  private readonly queues = new Map<string, Queue>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly ds: DataSource,
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly discoveryMs = 10_000,
  ) {
    this.board = createBullBoard({ queues: [], serverAdapter: this.serverAdapter });
    for (const name of Object.values(QUEUE)) this.add(name);
  }

  /** The Express router to mount at BULL_BOARD_PATH. */
  router(): unknown {
    return this.serverAdapter.getRouter();
  }

  queueNames(): string[] {
    return [...this.queues.keys()];
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
    for (const { provider } of rows) this.add(agentQueueName(provider));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    // The connection is shared, so closing a Queue leaves it open for the caller to end.
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }

  private add(name: string): void {
    if (this.queues.has(name)) return;
    const queue = new Queue(name, { connection: this.connection, prefix: this.prefix });
    this.queues.set(name, queue);
    this.board.addQueue(new BullMQAdapter(queue));
  }
}
