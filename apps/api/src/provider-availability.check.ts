import { Logger } from '@nestjs/common';
import { type AnyProjectConfig, type ConfigIssue, EVERY_PROVIDER, type ExperimentProjectConfig, isExperimentConfig, isPanelConfig, type NewRunEvent, type OperatorPolicy, type ProviderWorkerRecord } from '@roundtable/contracts';
import { readProviderRegistry } from './provider-registry.reader';
import { within } from './within';
import type { RedisClient } from '@roundtable/queues';

/**
 * How long a submission waits for the registry (Redis). Past it the run is accepted unchecked,
 * with a provider_unserved event per provider saying so: a submit must answer within 2 s with
 * Redis gone (the run is stored and starts when Redis and a worker are back), and what this check
 * guards is availability, not policy (the policy was checked before, without Redis).
 */
export const REGISTRY_WAIT_MS = 500;

export interface SubmitOptions {
  /** `?queue_unserved=true`: accept a run whose providers no live worker serves; it waits for one. */
  queueUnserved?: boolean;
  /** Who submits it (the api token's name): recorded on the run, and refused at its gates when four eyes is on. */
  submittedBy?: string;
  /** The team the run belongs to (issue 26): the submitter's; default when none is given. */
  team?: string;
  /** Whose ideas an idea_ref may name: one team, or null for every team (admin); unset, the run's own team's. */
  sees?: string | null;
}

/** A provider a run uses that no live worker can call. */
export interface UnservedProvider {
  provider: string;
  /** The key variable the worker group needs, for a provider that sends one. */
  api_key_env: string | null;
  reason: string;
  /** The worker group to start. */
  start: string;
}

/** A run's project file, or an experiment file (whose run calls its proposer, interpreter and critic). */
type CheckedConfig = AnyProjectConfig | ExperimentProjectConfig;

function agentsOf(config: CheckedConfig): { provider: string; fallback?: string }[] {
  if (isExperimentConfig(config)) return [...(config.proposer ? [config.proposer] : []), config.interpreter, config.critic];
  return isPanelConfig(config) ? [...Object.values(config.judges), config.moderator] : Object.values(config.agents);
}

/** Every provider name an agent, judge, moderator, interpreter or critic calls, its fallback included. */
export function providersUsed(config: CheckedConfig): Set<string> {
  const agents = agentsOf(config);
  const used = new Set<string>();
  for (const a of agents) {
    used.add(a.provider);
    if (a.fallback) used.add(a.fallback);
  }
  return used;
}

/** Pure: which of the run's providers the live workers leave unserved, and why. */
export function unservedProviders(config: CheckedConfig, workers: ProviderWorkerRecord[], policy: OperatorPolicy): UnservedProvider[] {
  const out: UnservedProvider[] = [];
  for (const provider of [...providersUsed(config)].sort()) {
    const pc = config.providers[provider];
    const keyEnv = pc && 'api_key_env' in pc ? pc.api_key_env : null;
    // A variable the policy does not hold as a key is refused by the policy check, which says so: never advise setting it.
    if (keyEnv && !policy.api_keys[keyEnv]) continue;
    const serving = workers.filter((w) => w.providers.includes(provider) || w.providers.includes(EVERY_PROVIDER));
    const group = `worker-${provider}`;
    const withKey = keyEnv ? ` and ${keyEnv} set` : '';
    const start = `start a provider-worker with PROVIDER_QUEUES=${provider}${withKey} (docker compose and k8s: ${group})`;
    if (!serving.length) {
      out.push({ provider, api_key_env: keyEnv, reason: `no live provider-worker serves provider "${provider}"`, start });
    } else if (keyEnv && !serving.some((w) => w.keys[keyEnv])) {
      const ids = serving.map((w) => w.worker_id).join(', ');
      out.push({ provider, api_key_env: keyEnv, reason: `the provider-workers serving provider "${provider}" (${ids}) all lack ${keyEnv}`, start: `set ${keyEnv} on ${group}, or ${start}` });
    }
  }
  return out;
}

/** The events of a run accepted while the registry did not answer: each of its providers, unchecked. */
function uncheckedProviders(config: CheckedConfig): NewRunEvent[] {
  return [...providersUsed(config)].sort().map((provider) => {
    const pc = config.providers[provider];
    return {
      type: 'provider_unserved' as const,
      payload: {
        provider,
        api_key_env: pc && 'api_key_env' in pc ? pc.api_key_env : null,
        reason: `the provider registry (Redis) did not answer within ${REGISTRY_WAIT_MS} ms: provider "${provider}" was not checked`,
        start: `the run starts once Redis answers and a provider-worker serving "${provider}" is live`,
      },
    };
  });
}

/** What the registry says of a submission: issues that refuse it, or (queue_unserved) events it is created with. */
export interface Availability {
  issues: ConfigIssue[];
  events: NewRunEvent[];
}

/**
 * Provider keys live on the workers, so a submission is held against the live provider registry,
 * not the api's own environment: a provider no worker serves (or whose workers all lack its key)
 * is an issue naming it, the variable and the worker group to start, before the run waits on a
 * queue nobody consumes. `queueUnserved`
 * (`?queue_unserved=true`) accepts the run anyway, to wait for that worker: the run's events say
 * so (`provider_unserved`).
 */
export class ProviderAvailabilityCheck {
  private readonly log = new Logger('api');

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly policy: OperatorPolicy,
  ) {}

  async check(config: CheckedConfig, queueUnserved: boolean): Promise<Availability> {
    const late = (e: Error) => this.log.warn(`the provider registry answered after the submission went on: ${e.message}`);
    const read = await within(readProviderRegistry(this.redis, this.prefix), REGISTRY_WAIT_MS, late).catch((e: Error) => {
      this.log.warn(`the provider registry could not be read (${e.message}): the submission's providers are not checked`);
      return { done: false as const };
    });
    if (!read.done) return { issues: [], events: uncheckedProviders(config) };
    const unserved = unservedProviders(config, read.value, this.policy);
    if (queueUnserved) return { issues: [], events: unserved.map((u) => ({ type: 'provider_unserved' as const, payload: { ...u } })) };
    const issues = unserved.map((u) => ({
      path: u.api_key_env ? `providers.${u.provider}.api_key_env` : `providers.${u.provider}`,
      message: `${u.reason}: ${u.start}; or post with ?queue_unserved=true to queue the run until one starts`,
    }));
    return { issues, events: [] };
  }
}
