import { UnrecoverableError } from 'bullmq';
import type { DataSource, EntityManager } from 'typeorm';
import { inboxKey, JobName, JobOf, TERMINAL_RUN_STATUSES, RunStatus } from '@roundtable/contracts';
import { addStatement, RunEntity, StatementBatch } from '@roundtable/persistence';
import { OutboxDispatcher, RunEventPublisher } from '@roundtable/events';
import { decide, type BuildEvent, type PanelPromptTemplates, type PriceLookup, type PromptTemplates } from '@roundtable/workflow';
import { finishedCallEvent, jobToBuildEvent, recordTestRun } from './job-to-event';
import { BUILD_RUN_STATE, buildRunStateFromRow } from './sql/build-run-state.sql';
import { lockRun } from './sql/lock-run.sql';
import { usageOfRow } from './sql/run-usage.sql';
import { SETTLE_FINISHED_CALL } from './sql/settle-finished-call.sql';
import { writeStep, type WrittenStep } from './step-writer';
import { applyPanelStep } from './panel/panel-step';

export type StepOutcome = 'applied' | 'duplicate' | 'ignored';

/**
 * One orchestrator step (ARCHITECTURE.md): lock the run row, skip an event already applied,
 * run the pure decide(), write rows + events + outbox in the same transaction, then enqueue
 * and publish after the commit. Several replicas are safe: the row lock serialises each run.
 */
export class OrchestratorStepService {
  constructor(
    private readonly ds: DataSource,
    private readonly outbox: OutboxDispatcher,
    private readonly publisher: RunEventPublisher,
    private readonly templates: PromptTemplates,
    /** Loaded at boot by loadPanelPromptTemplates; without them a panel run's step throws. */
    private readonly panelTemplates: PanelPromptTemplates | null = null,
    /** Table prices for the budget's worst-case USD reservations; absent: no call reserves USD. */
    private readonly prices?: PriceLookup,
    /** Backoff before each transient retry (PROVIDER_RETRY_DELAYS_MS); absent: the engine's default. */
    private readonly retryDelaysMs?: readonly number[],
  ) {}

  async apply(name: JobName, payload: Record<string, unknown> & { runId: string }, jobIdValue?: string): Promise<StepOutcome> {
    const eventKey = inboxKey(name, payload, jobIdValue);
    // The transaction is driven by hand, not by ds.transaction(), so that BEGIN travels with the
    // run lock and COMMIT with the step's last writes (StatementBatch): a step is a handful of
    // round trips instead of one per statement.
    const runner = this.ds.createQueryRunner();
    const tx = runner as unknown as { isTransactionActive: boolean }; // TypeORM's flag, read-only in its typings
    let written: WrittenStep | 'duplicate' | 'ignored';
    try {
      await runner.connect();
      const first = StatementBatch.of(runner.manager);
      addStatement(first, lockRun(runner.manager), payload.runId, eventKey);
      // A finished call is settled and the state read in the same round trip as the lock (each
      // statement runs after the one before, so under the lock), for either workflow; a
      // duplicate's settling is rolled back below. The state is read for every event: no
      // event's mapping changes what it reads, except settling, which comes first. A panel run
      // uses only its usage columns.
      const settling = name === 'agent.done';
      if (settling) {
        const outcome = (payload as JobOf<'agent.done'>).outcome;
        addStatement(first, SETTLE_FINISHED_CALL, String(payload.callId), payload.runId, outcome);
      }
      addStatement(first, BUILD_RUN_STATE, payload.runId);
      // Tells TypeORM a transaction is open on this connection, so nothing it runs opens another;
      // set before BEGIN is sent, so that any failure from here on is rolled back.
      tx.isTransactionActive = true;
      const [locked, ...read] = await first.flush({ before: 'BEGIN' });
      const outcome = await this.step(runner.manager, name, payload, locked.rows[0], {
        settled: settling ? read[0].rows[0] : null,
        state: read[read.length - 1].rows[0],
      });
      if (outcome.end !== 'committed') await runner.query(outcome.end === 'commit' ? 'COMMIT' : 'ROLLBACK');
      tx.isTransactionActive = false;
      written = outcome.written;
    } catch (e) {
      if (tx.isTransactionActive) {
        tx.isTransactionActive = false;
        await runner.query('ROLLBACK').catch(() => undefined); // the error that got here is the one to report
      }
      throw e;
    } finally {
      await runner.release();
    }
    if (typeof written === 'string') return written;
    await this.outbox.dispatchRows(written.outbox);
    await this.publisher.publish(written.events);
    if (written.status === 'cancelled') await this.outbox.withdrawQueuedJobs(payload.runId);
    return 'applied';
  }

  /**
   * Everything between the lock and the end of the transaction. `end` says how it ends:
   * `committed` (the last batch of writes carried the COMMIT), `commit`, or `rollback` (a
   * duplicate agent.done, whose settling in the first round trip must not count twice).
   */
  private async step(
    em: EntityManager,
    name: JobName,
    payload: Record<string, unknown> & { runId: string },
    locked: Record<string, unknown> | undefined,
    /** Read with the lock: the settled call (agent.done only, else null) and the build state row. */
    withLock: { settled: Record<string, unknown> | undefined | null; state: Record<string, unknown> | undefined },
  ): Promise<{ written: WrittenStep | 'duplicate' | 'ignored'; end: 'committed' | 'commit' | 'rollback' }> {
    if (!locked) throw new UnrecoverableError(`run ${payload.runId} does not exist`);
    const { __fresh: fresh, ...fields } = locked;
    const run = Object.assign(new RunEntity(), fields);
    if (!fresh) return { written: 'duplicate', end: withLock.settled !== null ? 'rollback' : 'commit' };
    // The report of a try that another delivery found interrupted and retried: the retry
    // reports. Nothing was settled for it; the inbox entry goes too, as if it never came.
    if (withLock.settled?.superseded === true) return { written: 'ignored', end: 'rollback' };
    const now = new Date();
    if (run.workflow === 'panel') {
      if (!this.panelTemplates) throw new Error(`run ${run.id} is a panel run and this orchestrator has no panel prompt templates`);
      const usage = usageOfRow(withLock.state ?? {}, run, now);
      return { written: await applyPanelStep(em, run, name, payload, { templates: this.panelTemplates, prices: this.prices, retryDelaysMs: this.retryDelaysMs }, now, { settled: withLock.settled, usage }), end: 'commit' };
    }
    // A finished run still records late call results (usage, reservations) and may be resumed.
    if (TERMINAL_RUN_STATUSES.includes(run.status as RunStatus) && name !== 'agent.done' && name !== 'run.resume') {
      return { written: 'ignored', end: 'commit' };
    }
    const event: BuildEvent =
      withLock.settled !== null
        ? finishedCallEvent(run.id, String(payload.callId), withLock.settled)
        : await jobToBuildEvent(em, run, name, payload);
    const state = buildRunStateFromRow(run, withLock.state ?? {}, now);
    const result = decide(state, event, { templates: this.templates, prices: this.prices, retryDelaysMs: this.retryDelaysMs });
    if (event.type === 'tests_finished') await recordTestRun(em, run.id, event.opId);
    return { written: await writeStep(em, run, result, [], { commit: true }), end: 'committed' };
  }
}
