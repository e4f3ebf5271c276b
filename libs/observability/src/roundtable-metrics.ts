import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The states `roundtable_queue_jobs` reports, as BullMQ's getJobCounts names them. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** Fills the queue-depth gauge; called on every scrape. */
export type QueueDepthSource = (set: (queue: string, state: QueueState, count: number) => void) => Promise<void>;

/** Agent calls last seconds to many minutes; orchestrator steps and workspace ops, milliseconds. */
const JOB_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const SANDBOX_SECONDS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/**
 * The catalogue of metric families, one registry per service process. Every service registers all of
 * them (a family a service never feeds shows its HELP and TYPE with no samples), so dashboards and
 * alerts need one list of names. Label values are bounded: queue and job names from the catalogue,
 * provider and model names from project files, statuses from the run vocabulary.
 */
export class RoundtableMetrics {
  readonly registry = new Registry();
  private depthSource: QueueDepthSource | null = null;

  /** What KEDA scales provider workers on: `sum by (queue) (roundtable_queue_jobs{state=~"waiting|prioritized|delayed|active"})`. */
  readonly queueJobs: Gauge<'queue' | 'state'>;
  readonly jobDuration: Histogram<'queue' | 'name' | 'outcome'>;
  readonly agentCalls: Counter<'provider' | 'model' | 'status'>;
  readonly agentTokens: Counter<'provider' | 'model' | 'direction'>;
  readonly agentCostUsd: Counter<'provider' | 'model'>;
  readonly runOutcomes: Counter<'workflow' | 'status'>;
  readonly budgetHalts: Counter<'cap'>;
  readonly sandboxRuns: Counter<'runner' | 'outcome'>;
  readonly sandboxDuration: Histogram<'runner'>;

  constructor(readonly service: string, opts: { defaultMetrics?: boolean } = {}) {
    this.registry.setDefaultLabels({ service });
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.queueJobs = new Gauge({
      name: 'roundtable_queue_jobs',
      help: 'Jobs per BullMQ queue and state, read from Redis at scrape time.',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        await self.depthSource?.((queue, state, count) => this.set({ queue, state }, count));
      },
    });
    this.jobDuration = new Histogram({
      name: 'roundtable_job_duration_seconds',
      help: 'Time a worker spent on one delivery of a job, by queue, job name and outcome (completed or failed).',
      labelNames: ['queue', 'name', 'outcome'],
      buckets: JOB_SECONDS,
      registers,
    });
    this.agentCalls = new Counter({
      name: 'roundtable_agent_calls_total',
      help: 'LLM requests recorded by provider workers (one per agent_calls row), by provider, model and outcome.',
      labelNames: ['provider', 'model', 'status'],
      registers,
    });
    this.agentTokens = new Counter({
      name: 'roundtable_agent_tokens_total',
      help: 'Tokens of recorded LLM requests, by provider, model and direction (input or output).',
      labelNames: ['provider', 'model', 'direction'],
      registers,
    });
    this.agentCostUsd = new Counter({
      name: 'roundtable_agent_cost_usd_total',
      help: 'US dollars of recorded LLM requests with a known price, by provider and model.',
      labelNames: ['provider', 'model'],
      registers,
    });
    this.runOutcomes = new Counter({
      name: 'roundtable_run_outcomes_total',
      help: 'Runs that reached a terminal status, by workflow and status (done, halted, needs_input, failed, cancelled).',
      labelNames: ['workflow', 'status'],
      registers,
    });
    this.budgetHalts = new Counter({
      name: 'roundtable_budget_halts_total',
      help: 'Runs halted by a budget cap, by the cap (max_calls, max_tokens, max_cost_usd, max_seconds …).',
      labelNames: ['cap'],
      registers,
    });
    this.sandboxRuns = new Counter({
      name: 'roundtable_sandbox_runs_total',
      help: 'Test runs by runner (docker or process) and outcome (passed, failed, timed_out, oom_killed, error).',
      labelNames: ['runner', 'outcome'],
      registers,
    });
    this.sandboxDuration = new Histogram({
      name: 'roundtable_sandbox_run_duration_seconds',
      help: 'Wall-clock seconds of a test run, container start to removal, by runner.',
      labelNames: ['runner'],
      buckets: SANDBOX_SECONDS,
      registers,
    });
  }

  /** Where roundtable_queue_jobs comes from; one source per process. */
  setQueueDepthSource(source: QueueDepthSource | null): void {
    this.depthSource = source;
  }

  /** The text exposition format, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
