import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { JobOf, TERMINAL_RUN_STATUSES, type JobName, type RunStatus } from '@roundtable/contracts';
import { appendRunEvents, writeOutbox, type OutboxJob } from '@roundtable/events';
import { RunEntity } from '@roundtable/persistence';
import {
  decidePanel,
  panelStateOf,
  toStoredPanelState,
  type PanelEvent,
  type PanelFinishedCall,
  type PanelStepContext,
  type PanelStepResult,
  type UsageSnapshot,
} from '@roundtable/workflow';
import { finishedCallEvent } from '../job-to-event';
import { insertDecisions, writeCommand, type WrittenStep } from '../step-writer';

type Row<T> = QueryDeepPartialEntity<T>;

/** Jobs a panel run acts on; the build's workspace and test jobs and resume mean nothing to it. */
const PANEL_JOBS: ReadonlySet<JobName> = new Set<JobName>(['run.start', 'run.cancel', 'agent.done', 'run.appeal']);

/** Jobs a finished panel run still takes: late call results (usage, reservations) and its one appeal. */
const AFTER_THE_END: ReadonlySet<JobName> = new Set<JobName>(['agent.done', 'run.appeal']);

/**
 * The panel event a job stands for. A finished call was settled with the run lock, as for the
 * build, so its reservation is released and its usage (retries included) counted alike.
 */
function jobToPanelEvent(run: RunEntity, name: JobName, payload: Record<string, unknown>, settled: object | undefined | null): PanelEvent {
  switch (name) {
    case 'run.appeal': {
      const p = payload as JobOf<'run.appeal'>;
      return { type: 'appeal', evidence: p.evidence, judges: p.judges, ...(p.caps ? { caps: p.caps } : {}) };
    }
    case 'agent.done': {
      const event = finishedCallEvent(run.id, String(payload.callId), settled ?? undefined);
      if (event.type !== 'agent_call_finished') throw new Error(`agent.done for run ${run.id} did not map to a finished call`);
      return { type: 'agent_call_finished', call: event.call as unknown as PanelFinishedCall };
    }
    case 'run.cancel':
      return { type: 'cancel' };
    default:
      return { type: 'start' };
  }
}

/**
 * One orchestrator step of a panel run, inside the step's transaction (the run row is locked
 * and the event is in the inbox): the job as a PanelEvent, the state rebuilt from the run row
 * and the usage read with the lock, the pure decidePanel(), and its result written like the build's.
 */
export async function applyPanelStep(
  em: EntityManager,
  run: RunEntity,
  name: JobName,
  payload: Record<string, unknown>,
  ctx: PanelStepContext,
  now: Date,
  /** Read with the run lock: the settled call (agent.done, else null) and the run's usage. */
  withLock: { settled: object | undefined | null; usage: UsageSnapshot },
): Promise<WrittenStep | 'ignored'> {
  if (!PANEL_JOBS.has(name)) return 'ignored';
  if (TERMINAL_RUN_STATUSES.includes(run.status as RunStatus) && !AFTER_THE_END.has(name)) return 'ignored';
  const event = jobToPanelEvent(run, name, payload, withLock.settled);
  return writePanelStep(em, run, decidePanel(panelStateOf(run, withLock.usage), event, ctx));
}

/**
 * Writes one decidePanel() result: the run row (scalars in their columns, the rest in
 * workflow_state), decisions, events, and each agent call as the build writes it — the audit
 * row, its budget reservation and the outbox job, so five judges in flight are five reservations.
 * Verdicts, turns and re-votes are in workflow_state and on their events; no other table holds them.
 */
export async function writePanelStep(em: EntityManager, run: RunEntity, result: PanelStepResult): Promise<WrittenStep> {
  const runId = run.id;
  const s = result.state;
  const terminal = (status: string) => TERMINAL_RUN_STATUSES.includes(status as RunStatus);
  const { call: callSeq, ...labelCounters } = s.counters;
  await em.update(RunEntity, { id: runId }, {
    status: s.status,
    stage: s.stage,
    haltReason: s.haltReason,
    workflowState: toStoredPanelState(s),
    labelCounters,
    callSeq: callSeq ?? run.callSeq,
    // decidePanel replaces the config only to raise caps (an appeal asked again with caps).
    ...(s.config !== (run.config as unknown) ? { config: s.config } : {}),
    ...(result.verdict ? { verdict: result.verdict, confidence: result.confidence } : {}),
    ...(run.status === 'queued' && s.status === 'running' ? { startedAt: new Date() } : {}),
    ...(!terminal(run.status) && terminal(s.status) ? { finishedAt: new Date() } : {}),
  } as Row<RunEntity>);
  await insertDecisions(em, runId, result.decisions);
  const jobs: OutboxJob[] = [];
  let seq = run.callSeq;
  for (const c of result.commands) jobs.push(await writeCommand(em, s, c, () => ++seq));
  const events = await appendRunEvents(em, runId, result.events);
  const outbox = await writeOutbox(em, jobs);
  return { outbox, events, status: s.status };
}
