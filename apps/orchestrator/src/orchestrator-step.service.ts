import type { DataSource, EntityManager } from 'typeorm';
import { JobName, TERMINAL_RUN_STATUSES, RunStatus } from '@roundtable/contracts';
import { preparedQuery, RunEntity } from '@roundtable/persistence';
import { OutboxDispatcher, RunEventPublisher } from '@roundtable/events';
import { decide, type PanelPromptTemplates, type PromptTemplates } from '@roundtable/workflow';
import { eventKeyOf, jobToBuildEvent, recordTestRun } from './job-to-event';
import { loadBuildRunState } from '@roundtable/persistence';
import { writeStep } from './step-writer';
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
  ) {}

  async apply(name: JobName, payload: Record<string, unknown> & { runId: string }, jobIdValue?: string): Promise<StepOutcome> {
    const eventKey = eventKeyOf(name, payload, jobIdValue);
    const written = await this.ds.transaction(async (em) => {
      const locked = await lockRunAndRecordEvent(em, payload.runId, eventKey);
      if (!locked) throw new Error(`run ${payload.runId} does not exist`);
      const { run, fresh } = locked;
      if (!fresh) return 'duplicate' as const;
      if (run.workflow === 'panel') {
        if (!this.panelTemplates) throw new Error(`run ${run.id} is a panel run and this orchestrator has no panel prompt templates`);
        return applyPanelStep(em, run, name, payload, this.panelTemplates, new Date());
      }
      // A finished run still records late call results (usage, reservations) and may be resumed.
      if (TERMINAL_RUN_STATUSES.includes(run.status as RunStatus) && name !== 'agent.done' && name !== 'run.resume') {
        return 'ignored' as const;
      }
      const now = new Date();
      const event = await jobToBuildEvent(em, run, name, payload);
      const state = await loadBuildRunState(em, run, now);
      const result = decide(state, event, { templates: this.templates });
      if (event.type === 'tests_finished') await recordTestRun(em, run.id, event.opId);
      return writeStep(em, run, result);
    });
    if (typeof written === 'string') return written;
    await this.outbox.dispatchRows(written.outbox);
    await this.publisher.publish(written.events);
    if (written.status === 'cancelled') await this.outbox.withdrawQueuedJobs(payload.runId);
    return 'applied';
  }
}

/** `"column" AS "property"` for every column of the run entity, so a raw row maps onto it. */
let runColumns: string | null = null;
function runColumnList(em: EntityManager): string {
  runColumns ??= em.connection
    .getMetadata(RunEntity)
    .columns.map((c) => `"${c.databaseName}" AS "${c.propertyName}"`)
    .join(', ');
  return runColumns;
}

/**
 * Step 1 in one round trip: locks the run row (FOR UPDATE, which serialises the run's steps)
 * and records the event in the inbox; `fresh` is false when it was already applied. The CTE
 * that inserts reads the locked row, so the lock is taken first, as with two statements.
 * Null when the run does not exist.
 */
async function lockRunAndRecordEvent(em: EntityManager, runId: string, eventKey: string): Promise<{ run: RunEntity; fresh: boolean } | null> {
  const { rows } = await preparedQuery<Record<string, unknown> & { __fresh: boolean }>(
    em,
    `WITH run AS (SELECT ${runColumnList(em)} FROM runs WHERE id = $1 FOR UPDATE),
          inbox AS (INSERT INTO applied_events (run_id, event_key) SELECT "id", $2 FROM run ON CONFLICT DO NOTHING RETURNING 1)
     SELECT run.*, EXISTS (SELECT 1 FROM inbox) AS "__fresh" FROM run`,
    [runId, eventKey],
  );
  if (!rows.length) return null;
  const { __fresh: fresh, ...fields } = rows[0];
  return { run: Object.assign(new RunEntity(), fields), fresh };
}
