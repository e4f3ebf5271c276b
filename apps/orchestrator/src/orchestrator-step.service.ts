import { UnrecoverableError } from 'bullmq';
import type { DataSource, EntityManager } from 'typeorm';
import { inboxKey, JobName, JobOf, type OperatorBudgets, type RecordSigner } from '@roundtable/contracts';
import { addStatement, RunEntity, StatementBatch } from '@roundtable/persistence';
import { RunEventPublisher } from '@roundtable/events';
import { OutboxDispatcher } from '@roundtable/service';
import type { ExperimentPromptTemplates, PanelPromptTemplates, PriceLookup, PromptTemplates } from '@roundtable/workflow';
import { lockRun } from './sql/lock-run.sql';
import { RUN_USAGE } from './sql/run-usage.sql';
import { LOCK_PROJECT_SCOPE, LOCK_TEAM_SCOPE, SCOPE_USAGE, scopeReadsOf, sharedUsageOf, utcDayStart, type ScopeReads, type ScopeUsageRow } from './sql/scope-usage.sql';
import { SETTLE_FINISHED_CALL, type SettledCallRow } from './sql/settle-finished-call.sql';
import { noteStepOnSpan } from './step-span';
import { writeStep, type WrittenStep } from './step-writer';
import type { OrchestratorJobName } from './workflows/workflow-definition';
import { checkJobTables, workflowRegistry, type WorkflowRegistry } from './workflows/workflow-registry';

/**
 * What a job sends in the step's first round trip, after the lock and before the state read, by
 * job name: agent.done settles its finished call there (for either workflow), so that the state
 * read sees it. null: nothing.
 */
const WITH_THE_LOCK: { [N in OrchestratorJobName]: ((batch: StatementBatch, payload: JobOf<N>) => void) | null } = {
  'agent.done': (batch, p) => void addStatement(batch, SETTLE_FINISHED_CALL, String(p.callId), p.runId, p.outcome),
  'run.start': null,
  'run.cancel': null,
  'workspace.done': null,
  'tests.done': null,
  'run.resume': null,
  'run.appeal': null,
  'run.halt': null,
  'run.approve': null,
  'run.answer': null,
};

/** An experiment's method runs this long unless its preregistration says otherwise, and never longer than the max (the sandbox policy may hold it shorter). */
const METHOD_TIMEOUT_S = { default: 600, max: 3600 } as const;

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
    /** Loaded at boot by loadExperimentPromptTemplates; without them an experiment run's step throws. */
    private readonly experimentTemplates: ExperimentPromptTemplates | null = null,
    /** The workflows by name; checked at construction (boot) that each has a handler for every orchestrator job. */
    private readonly registry: WorkflowRegistry = workflowRegistry({
      build: { templates, prices, retryDelaysMs },
      panel: panelTemplates ? { templates: panelTemplates, prices, retryDelaysMs } : null,
      experiment: experimentTemplates ? { templates: experimentTemplates, prices, retryDelaysMs, methodTimeoutS: METHOD_TIMEOUT_S } : null,
    }),
    /** What the operator holds runs accountable with (issue 26), read at boot. */
    accountable: {
      /** AUDIT_SIGNING_KEY, parsed: the step that ends a run signs its head hash. Absent: unsigned. */
      signer?: RecordSigner | null;
      /** ROUNDTABLE_POLICY's caps across runs; none: a step reads nothing more. */
      budgets?: OperatorBudgets;
    } = {},
  ) {
    checkJobTables(registry);
    this.signer = accountable.signer ?? null;
    this.budgets = accountable.budgets ?? { teams: {}, projects: {} };
    this.scopeReads = scopeReadsOf(this.budgets);
  }

  private readonly signer: RecordSigner | null;
  private readonly budgets: OperatorBudgets;

  private readonly scopeReads: ScopeReads | null;

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
      // A finished call is settled and the usage read in the same round trip as the lock (each
      // statement runs after the one before, so under the lock), for either workflow; a
      // duplicate's settling is rolled back below. The workflow's state is the snapshot on the
      // locked row itself; the usage is read for every event (settling, which changes it, comes
      // first).
      const withTheLock = WITH_THE_LOCK[name as OrchestratorJobName] as ((b: StatementBatch, p: unknown) => void) | null | undefined;
      if (withTheLock === undefined) throw new UnrecoverableError(`job ${name} is not for the orchestrator`);
      const settling = withTheLock !== null;
      withTheLock?.(first, payload);
      const usageAt = addStatement(first, RUN_USAGE, payload.runId);
      // Caps across runs, only when the policy has some: the team's lock, then the project's
      // (after the run's: one order for every step, no deadlock), then what all their runs have
      // used, read under the locks, which the step's COMMIT releases. Same round trip.
      const now = new Date();
      const scopes = this.scopeReads;
      if (scopes) {
        if (scopes.teams.length) addStatement(first, LOCK_TEAM_SCOPE, payload.runId, scopes.teams);
        if (scopes.projects.length) addStatement(first, LOCK_PROJECT_SCOPE, payload.runId, scopes.projects);
      }
      const scopeAt = scopes ? addStatement(first, SCOPE_USAGE, payload.runId, scopes.teams, scopes.projects, utcDayStart(now)) : -1;
      // Tells TypeORM a transaction is open on this connection, so nothing it runs opens another;
      // set before BEGIN is sent, so that any failure from here on is rolled back.
      tx.isTransactionActive = true;
      const read = await first.flush({ before: 'BEGIN' });
      const scopeRows = scopeAt >= 0 ? (read[scopeAt].rows as unknown as ScopeUsageRow[]) : [];
      const usage = read[usageAt].rows[0];
      const outcome = await this.step(runner.manager, name, payload, read[0].rows[0], {
        // The settling statement, when there is one, comes right after the lock.
        settled: settling ? read[1].rows[0] : null,
        usage: usage && scopeRows.length ? { ...usage, shared: sharedUsageOf(scopeRows, this.budgets) } : usage,
        now,
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
    /** Read with the lock: the settled call (agent.done only, else null) and the run's usage. */
    withLock: { settled: Record<string, unknown> | undefined | null; usage: Record<string, unknown> | undefined; now: Date },
  ): Promise<{ written: WrittenStep | 'duplicate' | 'ignored'; end: 'committed' | 'commit' | 'rollback' }> {
    if (!locked) throw new UnrecoverableError(`run ${payload.runId} does not exist`);
    const { __fresh: fresh, ...fields } = locked;
    const run = Object.assign(new RunEntity(), fields);
    if (!fresh) return { written: 'duplicate', end: withLock.settled !== null ? 'rollback' : 'commit' };
    // The report of a try that another delivery found interrupted and retried: the retry
    // reports. Nothing was settled for it; the inbox entry goes too, as if it never came.
    if (withLock.settled?.superseded === true) return { written: 'ignored', end: 'rollback' };
    const workflow = this.registry[run.workflow];
    if (!workflow) throw new UnrecoverableError(`run ${run.id} is a ${run.workflow} run, a workflow this orchestrator does not know (it knows ${Object.keys(this.registry).join(', ')})`);
    const decided = await workflow.decide({
      em,
      run,
      name: name as OrchestratorJobName,
      payload,
      settled: withLock.settled,
      usageRow: withLock.usage ?? { used: [], reserved: [] },
      now: withLock.now,
    });
    noteStepOnSpan(run, decided === 'ignored' ? null : (decided.result.state as { stage?: unknown }));
    if (decided === 'ignored') return { written: 'ignored', end: 'commit' };
    const settled = (withLock.settled ?? null) as SettledCallRow | null;
    return { written: await writeStep(em, run, decided, { commit: true, settled, signer: this.signer }), end: 'committed' };
  }
}
