import { UnrecoverableError } from 'bullmq';
import { runStatement } from '@roundtable/persistence';
import type { EngineEvent } from '@roundtable/workflow';
import { finishedCallEvent } from '../job-to-event';
import { LAST_HALT_FROM_STAGE } from '../sql/job-reads.sql';
import type { JobHandler } from './workflow-definition';

/**
 * The jobs the engine owns, written once for every workflow: a run starts, is cancelled, a
 * call finishes (settled with the run lock, SETTLE_FINISHED_CALL), a person resumes, approves or answers it, the
 * reconciler halts it. A workflow's job table spreads these and adds its own jobs.
 */
export type EngineJobName = 'run.start' | 'run.cancel' | 'agent.done' | 'run.resume' | 'run.halt' | 'run.approve' | 'run.answer';
export type EngineJobs<C, G extends string> = { [N in EngineJobName]: JobHandler<N, EngineEvent<C, G>> };

/** `stages`: the workflow's own stages (a resume naming another workflow's stage is a bug upstream, not retried). */
export function engineJobs<C, G extends string>(workflow: string, stages: readonly G[]): EngineJobs<C, G> {
  return {
    'run.start': { afterTheEnd: false, toEvent: () => ({ type: 'start' }) },
    'run.cancel': { afterTheEnd: false, toEvent: () => ({ type: 'cancel' }) },
    'agent.done': {
      afterTheEnd: true,
      toEvent: ({ run, payload, settled }) => {
        const event = finishedCallEvent(run.id, String(payload.callId), settled ?? undefined);
        // The settled row is any workflow's call: its role and stage are the ones this run's workflow gave it.
        return { type: 'agent_call_finished', call: event.call as unknown as C };
      },
    },
    'run.resume': {
      afterTheEnd: true,
      toEvent: async ({ em, run, payload: p }) => {
        if (p.from) {
          if (!(stages as readonly string[]).includes(p.from)) {
            throw new UnrecoverableError(`run ${run.id} is a ${workflow} run: it has no stage ${p.from} to resume from (its stages: ${stages.join(', ')})`);
          }
          return { type: 'resume', at: p.from as G, rerun: true, caps: p.caps };
        }
        // Without a named stage, restart where the halting decision left the run.
        const {
          rows: [last],
        } = await runStatement(em, LAST_HALT_FROM_STAGE, run.id);
        return { type: 'resume', at: (last?.from_stage ?? run.stage) as G, rerun: false, caps: p.caps };
      },
    },
    // A person's decision and answer: the api checked the gate and the question under the run lock; the step checks again.
    'run.approve': {
      afterTheEnd: false,
      toEvent: ({ payload: p }) => ({ type: 'approval', gate: p.gate, decision: p.decision, note: p.note, approver: p.approver, ...(p.criteria ? { criteria: p.criteria } : {}) }),
    },
    // A needs_input run has ended, and waits for exactly this.
    'run.answer': {
      afterTheEnd: true,
      toEvent: ({ payload: p }) => ({ type: 'answer', questionId: p.questionId, answer: p.answer, answeredBy: p.answeredBy, ...(p.experimentId ? { experimentId: p.experimentId } : {}) }),
    },
    'run.halt': {
      afterTheEnd: false,
      // A step that moved the run after the reconciler looked makes the halt moot (updated_at, to the ms as the entity reads it).
      toEvent: ({ run, payload: p }) => (run.updatedAt.getTime() === p.seenMs ? { type: 'halt', reason: p.reason } : null),
    },
  };
}
