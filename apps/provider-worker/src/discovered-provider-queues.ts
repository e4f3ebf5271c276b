import { Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import type { Worker } from 'bullmq';
import type { DataSource } from 'typeorm';
import { agentQueueName } from '@roundtable/contracts';
import type { RoundtableMetrics } from '@roundtable/observability';
import { startTypedWorker, type JobProducer, type RedisClient } from '@roundtable/queues';
import { agentCallRoutes } from './agent-call.processor';
import type { AgentCallService } from './agent-call.service';
import { readQueueSettings } from './latest-provider-config';

export interface DiscoveredQueuesOptions {
  prefix: string;
  /** Provider queues that already have a processor (named in PROVIDER_QUEUES beside `*`). */
  skip: string[];
  concurrency: number;
  discoveryMs: number;
  /** For PROVIDER_CONCURRENCY_<NAME> overrides. */
  env?: NodeJS.ProcessEnv;
  /** Job durations per queue. */
  metrics?: RoundtableMetrics;
}

/**
 * With PROVIDER_QUEUES=*: the `agent.<provider>` queues found from the calls waiting in Postgres
 * (a provider exists only in project files, not in this service's config), each given a worker
 * as it appears. @nestjs/bullmq's processors are found once, at start, so these workers are
 * started here (startTypedWorker), with the same handler table as a named queue's processor
 * (agentCallRoutes), and closed here before the connections go.
 */
export class DiscoveredProviderQueues implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('provider-worker');
  private readonly workers = new Map<string, Worker | Promise<void>>();
  private discovery?: NodeJS.Timeout;

  constructor(
    private readonly ds: DataSource,
    private readonly connection: RedisClient,
    private readonly producer: JobProducer,
    private readonly calls: AgentCallService,
    private readonly opts: DiscoveredQueuesOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.discover();
    this.log.log(`discovering provider queues every ${this.opts.discoveryMs} ms`);
    this.discovery = setInterval(() => {
      this.discover().catch((e: Error) => this.log.error(`provider discovery: ${e.message}`));
    }, this.opts.discoveryMs);
  }

  private async discover(): Promise<void> {
    const rows: { provider: string }[] = await this.ds.query(`SELECT DISTINCT provider FROM agent_calls WHERE status IN ('queued', 'running')`);
    await Promise.all(rows.filter(({ provider }) => !this.opts.skip.includes(provider)).map(({ provider }) => this.consume(provider)));
  }

  private consume(provider: string): Promise<void> {
    const existing = this.workers.get(provider);
    if (existing) return existing instanceof Promise ? existing : Promise.resolve();
    const starting = this.start(provider).catch((e: Error) => {
      this.workers.delete(provider); // the next discovery tries again
      throw e;
    });
    this.workers.set(provider, starting);
    return starting;
  }

  private async start(provider: string): Promise<void> {
    const queueName = agentQueueName(provider);
    const settings = await readQueueSettings(this.ds, provider, this.opts.env ?? process.env, this.opts.concurrency);
    const worker = startTypedWorker({
      routes: agentCallRoutes(provider, this.calls, this.producer),
      connection: this.connection,
      prefix: this.opts.prefix,
      concurrency: settings.concurrency,
      limiter: settings.limiter,
      metrics: this.opts.metrics,
    });
    worker.on('failed', (job, err) => this.log.error(`agent call ${job?.data?.callId} failed: ${err.message}`));
    this.workers.set(provider, worker);
    this.log.log(`consuming queue ${this.opts.prefix}:${queueName} (${settings.source})`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.discovery) clearInterval(this.discovery);
    await Promise.allSettled([...this.workers.values()]);
    // close() waits for running calls to finish: they are recorded, not lost.
    await Promise.all([...this.workers.values()].filter((w): w is Worker => !(w instanceof Promise)).map((w) => w.close()));
  }
}
