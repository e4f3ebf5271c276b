import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  type OperatorPolicy,
  PROVIDER_REGISTRY_HEARTBEAT_MS,
  PROVIDER_REGISTRY_TTL_MS,
  providerRegistryKey,
  ProviderWorkerRecord,
} from '@roundtable/contracts';
import type { CliUserDecision } from '@roundtable/providers';
import { probeClis } from './cli-probes';
import type { RedisClient } from '@roundtable/queues';

export interface RegistryPublisherOptions {
  prefix: string;
  /** PROVIDER_QUEUES as given (`*` included). */
  providers: string[];
  concurrency: number;
  policy: OperatorPolicy;
  cliUser: CliUserDecision;
  env?: NodeJS.ProcessEnv;
  heartbeatMs?: number;
  ttlMs?: number;
}

/** Whether each of the policy's key variables is set here: the names only, never a value. */
export function keysPresent(policy: OperatorPolicy, env: NodeJS.ProcessEnv): Record<string, boolean> {
  return Object.fromEntries(Object.keys(policy.api_keys).map((k) => [k, Boolean(env[k]?.trim())]));
}

/**
 * This worker's entry in the provider registry: published before the worker consumes, refreshed
 * every heartbeat, expiring TTL after the last one (a killed worker drops out by itself), and
 * deleted on a clean shutdown. The api reads it to refuse a run no worker can serve.
 */
export class ProviderRegistryPublisher implements OnModuleDestroy {
  private readonly log = new Logger('provider-registry');
  readonly workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private record?: ProviderWorkerRecord;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: RegistryPublisherOptions,
  ) {}

  get key(): string {
    return providerRegistryKey(this.opts.prefix, this.workerId);
  }

  /** Awaited in the module's factory, before any queue's worker starts: a worker that consumes is already listed. */
  async start(): Promise<void> {
    const env = this.opts.env ?? process.env;
    const now = new Date().toISOString();
    this.record = ProviderWorkerRecord.parse({
      worker_id: this.workerId,
      host: hostname(),
      pid: process.pid,
      providers: this.opts.providers,
      keys: keysPresent(this.opts.policy, env),
      clis: await probeClis(this.opts.policy, this.opts.cliUser, env),
      concurrency: this.opts.concurrency,
      started_at: now,
      heartbeat_at: now,
    });
    await this.publish();
    this.timer = setInterval(() => {
      // A missed beat is retried at the next; the TTL covers a few.
      this.publish().catch((e: Error) => this.log.warn(`provider registry heartbeat failed: ${e.message}`));
    }, this.opts.heartbeatMs ?? PROVIDER_REGISTRY_HEARTBEAT_MS);
    this.timer.unref();
  }

  async publish(): Promise<void> {
    if (!this.record) return;
    this.record = { ...this.record, heartbeat_at: new Date().toISOString() };
    await this.redis.set(this.key, JSON.stringify(this.record), 'PX', this.opts.ttlMs ?? PROVIDER_REGISTRY_TTL_MS);
  }

  /** No more heartbeats: the record expires TTL after the last one, as a killed worker's does. */
  stopHeartbeat(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Before the connections close: a worker that stops is gone from the registry at once. */
  async onModuleDestroy(): Promise<void> {
    this.stopHeartbeat();
    await this.redis.del(this.key).catch((e: Error) => this.log.warn(`provider registry entry left to expire: ${e.message}`));
  }
}
