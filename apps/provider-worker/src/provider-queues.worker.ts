import { Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { agentQueueName, type ProviderConfig } from '@roundtable/contracts';
import type { RoundtableMetrics } from '@roundtable/observability';
import { startTypedWorker, type JobProducer } from '@roundtable/queues';
import type { AgentCallService, ExecuteResult } from './agent-call.service';
import { queueSettings } from './queue-settings';

export interface ProviderQueuesOptions {
  prefix: string;
  /** Provider names, or `*` to find them from the calls waiting in Postgres. */
  providers: string[];
  concurrency: number;
  discoveryMs: number;
  /** For PROVIDER_CONCURRENCY_<NAME> overrides. */
  env?: NodeJS.ProcessEnv;
  /** Job durations per queue. */
  metrics?: RoundtableMetrics;
}

/**
 * One BullMQ worker per `agent.<provider>` queue named in PROVIDER_QUEUES, so each
 * provider's workers scale alone. With `*`, queues are found from the calls waiting in
 * Postgres (a provider exists only in project files, not in this service's config).
 *
 * Every try is its own job and finishes as one (agent.done reports it, failed or not): a retry
 * is a new call the orchestrator's engine queues, delayed. After a 429 the whole queue is also
 * rate limited (BullMQ's manual rate limit), so every call to that provider backs off.
 */
export class ProviderQueuesWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('provider-worker');
  private readonly workers = new Map<string, Worker | Promise<void>>();
  private discovery?: NodeJS.Timeout;

  constructor(
    private readonly ds: DataSource,
    private readonly connection: Redis,
    private readonly producer: JobProducer,
    private readonly calls: AgentCallService,
    private readonly opts: ProviderQueuesOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.opts.providers.includes('*')) {
      await this.discover();
      this.log.log(`discovering provider queues every ${this.opts.discoveryMs} ms`);
      this.discovery = setInterval(() => {
        this.discover().catch((e: Error) => this.log.error(`provider discovery: ${e.message}`));
      }, this.opts.discoveryMs);
    }
    await Promise.all(this.opts.providers.filter((p) => p !== '*').map((p) => this.consume(p)));
  }

  /** The started BullMQ worker of a provider's queue (for tests and diagnostics). */
  workerFor(provider: string): Worker | undefined {
    const w = this.workers.get(provider);
    return w instanceof Worker ? w : undefined;
  }

  private async discover(): Promise<void> {
    const rows: { provider: string }[] = await this.ds.query(`SELECT DISTINCT provider FROM agent_calls WHERE status IN ('queued', 'running')`);
    await Promise.all(rows.map(({ provider }) => this.consume(provider)));
  }

  /** The provider's entry in the most recent run that declares it: rate limit and concurrency live there. */
  private async latestProviderConfig(provider: string): Promise<ProviderConfig | null> {
    const rows: { cfg: ProviderConfig | null }[] = await this.ds.query(
      `SELECT config -> 'providers' -> $1 AS cfg FROM runs WHERE config -> 'providers' ? $1 ORDER BY created_at DESC LIMIT 1`,
      [provider],
    );
    return rows[0]?.cfg ?? null;
  }

  private consume(provider: string): Promise<void> {
    const existing = this.workers.get(provider);
    if (existing) return existing instanceof Worker ? Promise.resolve() : existing;
    const starting = this.start(provider).catch((e: Error) => {
      this.workers.delete(provider); // the next discovery tries again
      throw e;
    });
    this.workers.set(provider, starting);
    return starting;
  }

  private async start(provider: string): Promise<void> {
    const queueName = agentQueueName(provider);
    const settings = queueSettings(provider, await this.latestProviderConfig(provider), this.opts.env ?? process.env, this.opts.concurrency);
    const worker: Worker = startTypedWorker({
      kind: 'agent',
      queueName,
      connection: this.connection,
      prefix: this.opts.prefix,
      concurrency: settings.concurrency,
      limiter: settings.limiter,
      metrics: this.opts.metrics,
      handlers: {
        'agent.call': async (p, job) => {
          const result = await this.calls.execute(p.runId, p.callId);
          await this.backOff(queueName, job, result);
        },
      },
    });
    worker.on('failed', (job, err) => this.log.error(`agent call ${job?.data?.callId} failed: ${err.message}`));
    this.workers.set(provider, worker);
    this.log.log(`consuming queue ${this.opts.prefix}:${queueName} (${settings.source})`);
  }

  /**
   * After a 429 the whole queue backs off (BullMQ's manual rate limit), so every call to that
   * provider waits, not just this one. The try itself is finished and reported; its retry is
   * the engine's, enqueued delayed by the same retry-after.
   */
  private async backOff(queueName: string, job: Job, result: ExecuteResult): Promise<void> {
    if (result.rateLimitMs == null) return;
    this.log.warn(`${job.data.callId}: rate limited by the provider, queue ${queueName} backs off ${result.rateLimitMs} ms`);
    await this.producer.queue(queueName).rateLimit(result.rateLimitMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.discovery) clearInterval(this.discovery);
    await Promise.allSettled([...this.workers.values()]);
    // close() waits for running calls to finish: they are recorded, not lost.
    await Promise.all([...this.workers.values()].filter((w): w is Worker => w instanceof Worker).map((w) => w.close()));
  }
}
