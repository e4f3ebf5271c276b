import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { SandboxConfig } from '@roundtable/contracts';
import type { RoundtableMetrics } from '@roundtable/observability';
import { dockerEndpoint, DockerEndpoint, DockerTestRunner, ProcessTestRunner, reapOrphans, TestRunner } from '@roundtable/sandbox';
import type { SandboxFacts } from './run-policy';
import { MeteredTestRunner } from './sandbox-run.metrics';

/** What WorkspaceOpsService needs: the runner a run's config asks for, and what its policy check needs to know. */
export interface TestRunnerChoice extends SandboxFacts {
  for(sandbox: SandboxConfig | undefined): TestRunner;
}

export interface SandboxRunnersSettings {
  /** Used when the project config names none (SANDBOX_IMAGE). */
  image: string;
  /** The operator policy's sandbox.runtime (e.g. runsc for gVisor); unset: the engine's default. */
  runtime?: string;
  /** DOCKER_HOST; the default socket when unset. */
  dockerHost?: string;
  /** How often leftover containers are looked for after start. */
  reapIntervalMs?: number;
  /** Counts and times every test run (roundtable_sandbox_runs_total, roundtable_sandbox_run_duration_seconds). */
  metrics?: RoundtableMetrics;
}

/**
 * Picks the test runner per run: the Docker sandbox unless the run's config says
 * `sandbox: process`. Never falls back from Docker to a plain process on its own: a missing
 * engine makes the docker run fail with a recorded reason instead.
 *
 * At start it removes sandbox containers an earlier test-runner left behind (a crash mid-run),
 * then keeps doing so periodically for those whose deadline passes later. An unreachable engine
 * is logged, not fatal: runs configured for the process runner still work.
 */
export class SandboxRunners implements TestRunnerChoice, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('sandbox');
  private readonly endpoint: DockerEndpoint;
  private readonly processRunner = new ProcessTestRunner();
  private reapTimer: NodeJS.Timeout | undefined;
  private cpus: Promise<number> | undefined;

  constructor(private readonly settings: SandboxRunnersSettings) {
    this.endpoint = dockerEndpoint(settings.dockerHost);
  }

  get defaultImage(): string {
    return this.settings.image;
  }

  /**
   * The engine's CPU count (`docker info` NCPU), asked once: a run asking for more is refused
   * before the engine would answer 400. An engine that does not answer is asked again next time.
   */
  async engineCpus(): Promise<number | undefined> {
    this.cpus ??= this.endpoint.client.info().then((info: { NCPU?: unknown }) => {
      if (typeof info.NCPU !== 'number') throw new Error('docker info has no NCPU');
      return info.NCPU;
    });
    try {
      return await this.cpus;
    } catch {
      this.cpus = undefined;
      return undefined;
    }
  }

  for(sandbox: SandboxConfig | undefined): TestRunner {
    const runner = this.choose(sandbox);
    return this.settings.metrics ? new MeteredTestRunner(runner, this.settings.metrics) : runner;
  }

  /** For /readyz: resolves when the Docker engine answers a ping, rejects with the reason otherwise. */
  async pingDocker(): Promise<void> {
    const ping = await new DockerTestRunner({ endpoint: this.endpoint, image: this.settings.image }).ping();
    if (!ping.ok) throw new Error(ping.error);
  }

  private choose(sandbox: SandboxConfig | undefined): TestRunner {
    // Runs stored before the sandbox setting existed have none: they get the default.
    if (sandbox?.runner === 'process') return this.processRunner;
    return new DockerTestRunner({
      endpoint: this.endpoint,
      image: sandbox?.image ?? this.settings.image,
      limits: { memoryMb: sandbox?.memory_mb, cpus: sandbox?.cpus, pids: sandbox?.pids },
      runtime: this.settings.runtime,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const reachable = await this.reap();
    if (reachable) this.log.log(`Docker engine at ${this.endpoint.address}; sandbox image ${this.settings.image}`);
    this.reapTimer = setInterval(() => void this.reap(), this.settings.reapIntervalMs ?? 60_000);
    this.reapTimer.unref();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.reapTimer);
  }

  /** Returns whether the engine answered. */
  private async reap(): Promise<boolean> {
    try {
      const removed = await reapOrphans(this.endpoint);
      if (removed.length > 0) this.log.warn(`removed ${removed.length} leftover sandbox container(s): ${removed.map((id) => id.slice(0, 12)).join(', ')}`);
      return true;
    } catch (err) {
      const ping = await new DockerTestRunner({ endpoint: this.endpoint, image: this.settings.image }).ping();
      const why = ping.ok ? (err as Error).message : ping.error;
      this.log.warn(`cannot reap sandbox containers: ${why}. Docker test runs fail until the engine answers; runs with sandbox.runner: process are unaffected.`);
      return false;
    }
  }
}
