import type { DataSource } from 'typeorm';
import { jobId, jobSchema, type JobOf } from '@roundtable/contracts';
import { isInfraFailureReason, type JobProducer } from '@roundtable/queues';
import {
  OVERDUE_GATES,
  PENDING_WORK,
  QUIET_RUNS,
  RECONCILE_LOCK,
  type PendingKind,
  type OverdueGateRow,
  type PendingWorkRow,
  type QuietRunRow,
  type ReconcileLockRow,
} from '../sql/reconciler.sql';

export interface ReconcilerSettings {
  /** How old a pending row must be before a missing job is sent again (younger ones are on their way). */
  resendAfterMs: number;
  /** Over a running call's timeout, how long its worker may still be reporting before the call is sent again. */
  leaseMarginMs: number;
  /** The timeout assumed for a call whose row has none. */
  defaultCallTimeoutMs: number;
  /** How long a running run may go without a step, with nothing of it in flight, before it is halted. */
  haltAfterMs: number;
}

export interface SweepReport {
  /** False: another reconciler held the sweep lock, and this one did nothing. */
  swept: boolean;
  pending: number;
  /** Jobs sent again because Redis did not have them. */
  resent: { kind: PendingKind; queue: string; jobId: string }[];
  /** Failed jobs (an infrastructure error, a stall) taken back for another try. */
  retried: { kind: PendingKind; queue: string; jobId: string }[];
  /** Quiet runs a `run.halt` job was sent for (the orchestrator halts them through their workflow). */
  halted: { runId: string; reason: string }[];
}

/** How many pending rows a sweep looks up in Redis at once. */
const CHECKS_AT_ONCE = 50;

/** A pending row as checked: whether its job will run, and the resend or retry that made it so. */
interface CheckedRow {
  outcome: 'in-flight' | string;
  resent?: SweepReport['resent'][number];
  retried?: SweepReport['retried'][number];
}

/** BullMQ states in which a job will still run (or is running). */
const IN_FLIGHT = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** A stall is the worker's death, not the job's fault: such a failed job is worth another try. */
const STALLED = /stalled more than allowable limit/i;

/**
 * "Postgres is the whole truth; Redis may forget." Sweeps the rows for pending work — agent
 * calls, workspace and tests operations, their unapplied reports, unapplied run controls — and
 * checks that each has its job in Redis. A job Redis lost is sent again from the rows (job ids
 * are the deterministic ones its first sender used, so a resend of a job that is there is a
 * no-op); a job that failed for an infrastructure error or a stall is retried. A running run with
 * nothing in flight and no step for `haltAfterMs` is sent a `run.halt` job: the orchestrator
 * halts it through its workflow like any halt (its closing call or fact-only close), so
 * `run.resume` picks it up where it stopped: never left running for good.
 *
 * Several replicas: a sweep holds a transaction-scoped advisory lock (RECONCILE_LOCK), so one
 * sweeps at a time and the others skip; a halt is applied only if no step has moved the run since
 * the sweep looked (the job carries the updated_at it saw).
 */
export class RunReconciler {
  constructor(
    private readonly ds: DataSource,
    private readonly producer: JobProducer,
    private readonly settings: ReconcilerSettings,
  ) {}

  async sweep(): Promise<SweepReport> {
    const report: SweepReport = { swept: false, pending: 0, resent: [], retried: [], halted: [] };
    const inFlight = new Set<string>();
    const stuck = new Map<string, string[]>();
    const runner = this.ds.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      const [lock] = (await runner.query(RECONCILE_LOCK.text, RECONCILE_LOCK.params())) as ReconcileLockRow[];
      if (!lock?.locked) {
        await runner.rollbackTransaction();
        return report;
      }
      report.swept = true;
      const rows = (await runner.query(PENDING_WORK.text, PENDING_WORK.params(this.settings))) as PendingWorkRow[];
      report.pending = rows.length;
      // The rows are checked against Redis a batch at a time, each batch's lookups at once: at
      // thousands of runs in flight, one round trip after another would hold the sweep's
      // transaction open for seconds. The report keeps the rows' order.
      for (let at = 0; at < rows.length; at += CHECKS_AT_ONCE) {
        const batch = rows.slice(at, at + CHECKS_AT_ONCE);
        const checked = await Promise.all(batch.map((row) => this.check(row)));
        batch.forEach((row, i) => {
          const { outcome, resent, retried } = checked[i];
          if (resent) report.resent.push(resent);
          if (retried) report.retried.push(retried);
          if (outcome === 'in-flight') inFlight.add(row.run_id);
          else stuck.set(row.run_id, [...(stuck.get(row.run_id) ?? []), outcome]);
        });
      }
      // Read under the sweep lock, so two replicas never both judge the same quiet run.
      const quiet = (await runner.query(QUIET_RUNS.text, QUIET_RUNS.params({ quietMs: this.settings.haltAfterMs }))) as QuietRunRow[];
      // A run waiting at a gate is left alone (it holds nothing), until its approval_timeout_s runs out.
      const overdue = (await runner.query(OVERDUE_GATES.text, OVERDUE_GATES.params())) as OverdueGateRow[];
      await runner.commitTransaction();
      for (const run of overdue) {
        const reason = `approval_timeout_s (${run.timeout_s} s) ran out at the ${run.gate ?? 'open'} gate: nobody approved or refused it`;
        await this.halt(run, reason);
        report.halted.push({ runId: run.id, reason });
      }
      for (const run of quiet) {
        if (inFlight.has(run.id)) continue;
        const why = stuck.get(run.id)?.join('; ') ?? 'no work is pending for it';
        const reason = `reconciler: nothing in flight and no step for ${Math.round(this.settings.haltAfterMs / 1000)} s (${why}); resume the run to continue`;
        await this.halt(run, reason);
        report.halted.push({ runId: run.id, reason });
      }
      return report;
    } catch (e) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw e;
    } finally {
      await runner.release();
    }
  }

  /**
   * One pending row against Redis: 'in-flight' when its job will run (after a resend or retry,
   * named in the answer, if need be), else why not.
   */
  private async check(row: PendingWorkRow): Promise<CheckedRow> {
    // A young row's job is on its way (a step's dispatch after its commit): not looked for yet.
    if (!row.due) return { outcome: 'in-flight' };
    const id = row.job_id ?? jobId(row.target!, row.suffix!);
    const queue = this.producer.queue(row.queue);
    const job = await queue.getJob(id);
    const state = job ? await job.getState() : 'missing';
    if (IN_FLIGHT.has(state)) return { outcome: 'in-flight' };
    const entry = { kind: row.kind, queue: row.queue, jobId: id };
    if (!job || state === 'unknown' || state === 'missing') {
      await this.producer.addRaw(row.queue, row.job_name, row.payload, id);
      return { outcome: 'in-flight', resent: entry };
    }
    if (state === 'failed') {
      if (isInfraFailureReason(job.failedReason) || STALLED.test(job.failedReason ?? '')) {
        await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
        return { outcome: 'in-flight', retried: entry };
      }
      return { outcome: `${row.job_name} job ${id} failed: ${job.failedReason}` };
    }
    // Completed while its row still says pending: the handler chose to do nothing; sending it again would do the same.
    return { outcome: `${row.job_name} job ${id} is ${state} but its row is still pending` };
  }

  /**
   * Asks the orchestrator to halt a quiet run: a `run.halt` job, applied by a step like any other
   * event, so the halt goes through the run's workflow (the calls in flight land, then the
   * closing call, or the fact-only close) and the step stays the one writer of the run row and
   * its events. The job id names the quiet spell (its updated_at): a resend is a no-op, and a
   * lost job is sent again by the next sweep, which still finds the run quiet. A call the state
   * still waits for but nothing will report (its job failed for good) leaves the halted run
   * quiet: the next sweep's halt, a halt while halted, closes it fact-only.
   */
  private async halt(run: QuietRunRow, reason: string): Promise<void> {
    const seenMs = Number(run.updated_ms);
    const payload = jobSchema('run.halt').parse({ runId: run.id, reason, seenMs }) as JobOf<'run.halt'>;
    await this.producer.add('run.halt', payload, { jobId: jobId(run.id, 'halt', seenMs) });
  }
}
