import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { TERMINAL_EVENT_TYPES, type RunEventEnvelope } from '@roundtable/contracts';
import { RunEventPublisher } from '@roundtable/events';
import type { RoundtableMetrics } from '@roundtable/observability';
import type { RedisClient } from '@roundtable/queues';

/** A halt reason that names a budget cap starts with it: `max_calls reached: 4 of 4 calls`. */
const BUDGET_CAP = /^(max_[a-z_]+)\b/;

/**
 * Counts run outcomes where the orchestrator publishes them: a terminal event (run_completed,
 * run_failed, run_cancelled) is written once, in the step that ends the run, so counting at publish
 * counts each ending once, whichever replica applied it. The run row says the workflow and, for a
 * halt, whether a budget cap caused it.
 */
export class OutcomeCountingPublisher extends RunEventPublisher {
  private readonly log = new Logger('orchestrator');

  constructor(
    redis: RedisClient,
    prefix: string,
    private readonly ds: DataSource,
    private readonly metrics: RoundtableMetrics,
  ) {
    super(redis, prefix);
  }

  override async publish(events: RunEventEnvelope[]): Promise<void> {
    await super.publish(events);
    for (const e of events) {
      if (!TERMINAL_EVENT_TYPES.includes(e.type as (typeof TERMINAL_EVENT_TYPES)[number])) continue;
      // Metrics never fail a step that has committed.
      await this.count(e).catch((err: Error) => this.log.warn(`run outcome metric for ${e.run_id}: ${err.message}`));
    }
  }

  private async count(e: RunEventEnvelope): Promise<void> {
    const [run] = (await this.ds.query(`SELECT workflow, status, halt_reason FROM runs WHERE id = $1`, [e.run_id])) as {
      workflow: string;
      status: string;
      halt_reason: string | null;
    }[];
    const status = e.type === 'run_failed' ? 'failed' : e.type === 'run_cancelled' ? 'cancelled' : String(e.payload.status ?? run?.status ?? 'unknown');
    const workflow = run?.workflow ?? 'unknown';
    this.metrics.runOutcomes.inc({ workflow, status });
    const cap = status === 'halted' ? BUDGET_CAP.exec(run?.halt_reason ?? '')?.[1] : undefined;
    if (cap) this.metrics.budgetHalts.inc({ cap });
    // The halt reason itself stays out: it may quote a model's words; the cap is enough to grep for.
    this.log.log({ msg: `run ${e.run_id} ended ${status}${cap ? ` (budget cap ${cap})` : ''}`, run_id: e.run_id, workflow, status, ...(cap ? { cap } : {}) });
  }
}
