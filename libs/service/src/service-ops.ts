import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap, OnApplicationShutdown, Provider } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { agentQueueName, QUEUE } from '@roundtable/contracts';
import { checkReadiness, OpsServer, QueueDepth, RoundtableMetrics, type Readiness, type ReadinessProbe } from '@roundtable/observability';
import { queuePrefix, type RedisClient } from '@roundtable/queues';
import { INFRA } from './service-infra';

export interface ServiceOpsSettings {
  service: string;
  prefix: string;
  /** HEALTH_PORT; null: no ops server (an api without HEALTH_PORT serves health and metrics on its own port only). */
  healthPort: number | null;
}

/**
 * A service's operations surface: its metrics registry (with queue depth read from Redis on each
 * scrape), its readiness probes (Postgres SELECT 1 and Redis PING; a service adds its own, such as
 * the test-runner's Docker ping), and for workers the ops server on HEALTH_PORT.
 */
export class ServiceOps implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  readonly metrics: RoundtableMetrics;
  private readonly log: Logger;
  private readonly probes: Record<string, ReadinessProbe>;
  private readonly depth: QueueDepth;
  private server?: OpsServer;
  private depthClosed = false;

  constructor(
    ds: DataSource,
    redis: RedisClient,
    private readonly settings: ServiceOpsSettings,
  ) {
    this.log = new Logger(settings.service);
    this.metrics = new RoundtableMetrics(settings.service);
    this.probes = { postgres: () => ds.query('SELECT 1'), redis: () => redis.ping() };
    this.depth = new QueueDepth(redis, (queue) => queuePrefix(settings.prefix, queue), {
      fixed: Object.values(QUEUE),
      discover: async () => {
        const rows: { provider: string }[] = await ds.query(`SELECT DISTINCT provider FROM agent_calls`);
        return rows.map((r) => agentQueueName(r.provider));
      },
      onError: (e) => this.log.warn(`metrics: ${e.message}`),
    });
    this.metrics.setQueueDepthSource((set) => (this.depthClosed ? Promise.resolve() : this.depth.source(set)));
  }

  /** Adds a dependency to /readyz (by name: the 503 names it). */
  addProbe(name: string, probe: ReadinessProbe): void {
    this.probes[name] = probe;
  }

  readiness(): Promise<Readiness> {
    return checkReadiness(this.probes);
  }

  /** The ops server's port once started (0 in HEALTH_PORT becomes the port chosen). */
  get healthPort(): number | null {
    return this.server?.port ?? null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.settings.healthPort === null) return;
    const port = this.settings.healthPort;
    this.server = await OpsServer.start({ port, metrics: this.metrics, readiness: () => this.readiness() }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EADDRINUSE') throw e;
      throw new Error(`HEALTH_PORT ${port} is in use (another service on this machine?): give each its own HEALTH_PORT, or 0 for any free port`);
    });
    this.log.log(`ops server on port ${this.server.port}: /healthz /readyz /metrics`);
  }

  /** Workers close in this same phase; the Redis connection closes in the next, so the depth reader lets go of it now. */
  async beforeApplicationShutdown(): Promise<void> {
    this.server?.markDraining();
    this.depthClosed = true;
    await this.depth.close();
  }

  /** Last: /healthz keeps answering while running jobs drain. */
  async onApplicationShutdown(): Promise<void> {
    await this.server?.close();
  }
}

/** The ServiceOps of a service that holds the INFRA connections (orchestrator, provider-worker, test-runner). */
export function opsProviders(env: { QUEUE_PREFIX: string; HEALTH_PORT: number }, service: string): Provider[] {
  return [
    {
      provide: ServiceOps,
      useFactory: (ds: DataSource, redis: RedisClient) => new ServiceOps(ds, redis, { service, prefix: env.QUEUE_PREFIX, healthPort: env.HEALTH_PORT }),
      inject: [INFRA.dataSource, INFRA.redis],
    },
  ];
}
