import type { RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import { emptyPanelView, emptyRunView } from './empty-run-view';
import { foldBuildEvent } from './fold-build-event';
import { foldCallEvent } from './fold-calls';
import { foldExperimentEvent } from './fold-experiment-event';
import { foldPeopleEvent } from './fold-people-event';
import { closePendingJudges, dropAbandonedTurn, foldPanelEvent } from './fold-panel-event';
import { isLiveOnly } from './live-only-events';
import { raisedCaps } from './raised-caps';
import type { RunNotice, RunView, RunViewStatus } from './run-view';
import { hasPanelView } from './workflow-views';

type P<T extends RunEventType> = RunEventPayload<T>;

const NOTICE_TYPES: ReadonlySet<string> = new Set<RunNotice['kind']>(['budget_warning', 'provider_fallback', 'provider_unserved', 'files_rejected', 'panel_warning']);

/**
 * The reducer: (RunView, envelope) → RunView, for every event type of every workflow. The
 * sequence gate comes first: an envelope at or below the last sequence folded is a duplicate
 * (a reconnect's replay, a second tab's) or out of order, and changes nothing — so a live
 * stream, a replay after reload and any mix of the two converge on the same view. Pure: the
 * view depends on the envelopes only (times are their created_at, never the clock). An event
 * type this version does not know advances the sequence and changes nothing else.
 */
export function foldRunEvent(view: RunView, ev: RunEventEnvelope): RunView {
  if (isLiveOnly(ev.type)) return foldLiveOnly(view, ev);
  if (ev.sequence <= view.lastSequence) return view;
  if (view.runId !== null && ev.run_id !== view.runId) return view;
  // A view folded from `?after=` (a resumed follow) starts its clock at the first envelope it saw.
  const seen: RunView = { ...view, runId: ev.run_id, lastSequence: ev.sequence, lastEventAt: ev.created_at, startedAt: view.startedAt ?? ev.created_at };
  const folded = foldCallEvent(seen, ev) ?? foldBuildEvent(seen, ev) ?? foldPanelEvent(seen, ev) ?? foldExperimentEvent(seen, ev) ?? foldPeopleEvent(seen, ev) ?? foldRunLifecycle(seen, ev);
  return dropAbandonedTurn(folded, ev);
}

/**
 * A live-only envelope (a debate turn's tokens) is in no log: its sequence is the one of the
 * stored event it follows. It folds when the view is at that event or behind it (a view
 * folded from the live stream alone), never when the view is past it (a stale frame whose
 * turn may be published already), and it does not advance the gate: the next stored event,
 * one above, must still pass. Folding the same delta twice would repeat its text, but the
 * stream sends each once, and the whole message replaces the turn anyway.
 */
function foldLiveOnly(view: RunView, ev: RunEventEnvelope): RunView {
  if (ev.sequence < view.lastSequence) return view;
  if (view.runId !== null && ev.run_id !== view.runId) return view;
  const seen: RunView = { ...view, runId: ev.run_id, lastEventAt: ev.created_at, startedAt: view.startedAt ?? ev.created_at };
  return foldPanelEvent(seen, ev) ?? seen;
}

/** Folds a whole log (or the next part of one) in order. */
export function foldRunEvents(envelopes: Iterable<RunEventEnvelope>, from: RunView = emptyRunView()): RunView {
  let view = from;
  for (const ev of envelopes) view = foldRunEvent(view, ev);
  return view;
}

function foldRunLifecycle(view: RunView, ev: RunEventEnvelope): RunView {
  if (NOTICE_TYPES.has(ev.type)) {
    const notice = { kind: ev.type, sequence: ev.sequence, payload: ev.payload } as RunNotice;
    return { ...view, notices: [...view.notices, notice] };
  }
  switch (ev.type) {
    case 'run_created': {
      const p = ev.payload as P<'run_created'>;
      const panel = hasPanelView(p.workflow) ? (view.panel ?? emptyPanelView()) : view.panel;
      // Stryker disable next-line ConditionalExpression: run_created is sequence 1 and no live-only envelope sets a status, so the status is still 'unknown' here (`false` is killed)
      const caps = p.caps ? { ...p.caps } : null;
      return { ...view, project: p.project, workflow: p.workflow, status: view.status === 'unknown' ? 'queued' : view.status, startedAt: view.startedAt ?? ev.created_at, panel, caps };
    }
    case 'run_started': {
      const p = ev.payload as P<'run_started'>;
      return { ...view, status: 'running', stage: 'INIT', workspace: p.workspace ?? null, startedAt: ev.created_at };
    }
    case 'stage_changed': {
      const p = ev.payload as P<'stage_changed'>;
      const entry = { stage: p.to, from: p.from, reason: p.reason || null, at: ev.created_at, sequence: ev.sequence };
      return { ...view, stage: p.to, stages: [...view.stages, entry] };
    }
    case 'open_question_raised':
      return { ...view, openQuestions: [...view.openQuestions, ev.payload as P<'open_question_raised'>] };
    case 'run_halted': {
      const p = ev.payload as P<'run_halted'>;
      const halts = [...view.halts, { reason: p.reason, at: ev.created_at, sequence: ev.sequence }];
      return { ...view, status: 'halted', endReason: p.reason, halts, panel: closePendingJudges(view.panel, 'stopped') };
    }
    case 'run_completed': {
      const p = ev.payload as P<'run_completed'>;
      const panel = p.panel ? { ...(view.panel ?? emptyPanelView()), completion: p.panel } : view.panel;
      const status = p.status as RunViewStatus;
      return {
        ...view,
        status,
        verdict: p.verdict ?? null,
        confidence: p.confidence ?? null,
        endReason: status === 'done' ? null : view.endReason,
        panel: status === 'done' ? panel : closePendingJudges(panel, 'stopped'),
      };
    }
    case 'run_failed': {
      const p = ev.payload as P<'run_failed'>;
      return { ...view, status: 'failed', endReason: p.reason, panel: closePendingJudges(view.panel, 'failed') };
    }
    case 'run_cancelled': {
      const p = ev.payload as P<'run_cancelled'>;
      return { ...view, status: 'cancelled', endReason: p.reason ?? null, panel: closePendingJudges(view.panel, 'stopped') };
    }
    case 'run_resumed': {
      const p = ev.payload as P<'run_resumed'>;
      const resumes = [...view.resumes, { ...p, sequence: ev.sequence }];
      return { ...view, status: 'running', verdict: null, confidence: null, endReason: null, resumes, caps: raisedCaps(view.caps, p.caps) };
    }
    default:
      return view;
  }
}
