import { Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { agentQueueName } from '@roundtable/contracts';
import { startTypedWorker } from '@roundtable/queues';
import type { AgentCallService } from './agent-call.service';

/**
 * One BullMQ worker per `agent.<provider>` queue named in PROVIDER_QUEUES, so each
 * provider's workers scale alone. With `*`, queues are found from the calls waiting in
 * Postgres (a provider exists only in project files, not in this service's config).
 */
export class ProviderQueuesWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('provider-worker');
  private readonly workers = new Map<string, Worker>();
  private discovery?: NodeJS.Timeout;

  constructor(
    private readonly ds: DataSource,
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly providers: string[],
    private readonly calls: AgentCallService,
    private readonly concurrency: number,
    private readonly discoveryMs: number,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.providers.includes('*')) {
      await this.discover();
      this.log.log(`discovering provider queues every ${this.discoveryMs} ms`);
      this.discovery = setInterval(() => {
        this.discover().catch((e: Error) => this.log.error(`provider discovery: ${e.message}`));
      }, this.discoveryMs);
    }
    for (const p of this.providers.filter((p) => p !== '*')) this.consume(p);
  }

  private async discover(): Promise<void> {
    const rows: { provider: string }[] = await this.ds.query(`SELECT DISTINCT provider FROM agent_calls WHERE status IN ('queued', 'running')`);
    for (const { provider } of rows) this.consume(provider);
  }

  private consume(provider: string): void {
    if (this.workers.has(provider)) return;
    const queueName = agentQueueName(provider);
    const worker = startTypedWorker({
      kind: 'agent',
      queueName,
      connection: this.connection,
      prefix: this.prefix,
      concurrency: this.concurrency,
      handlers: { 'agent.call': (p) => this.calls.execute(p.runId, p.callId) },
    });
    worker.on('failed', (job, err) => this.log.error(`agent call ${job?.data?.callId} failed: ${err.message}`));
    this.workers.set(provider, worker);
    this.log.log(`consuming queue ${this.prefix}:${queueName}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.discovery) clearInterval(this.discovery);
    // close() waits for running calls to finish: they are recorded, not lost.
    await Promise.all([...this.workers.values()].map((w) => w.close()));
  }
}
