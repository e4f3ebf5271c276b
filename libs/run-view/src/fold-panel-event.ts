import type { JudgeRole, RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import { emptyPanelView } from './empty-run-view';
import { raisedCaps } from './raised-caps';
import type { JudgeCard, PanelView, RunView } from './run-view';

type P<T extends RunEventType> = RunEventPayload<T>;

/** Every panel-only event type: one of them makes a view a panel's even without run_created. */
export const PANEL_EVENT_TYPES: ReadonlySet<string> = new Set<RunEventType>([
  'judges_dispatched',
  'judge_verdict_completed',
  'roast_panel_completed',
  'panel_retry',
  'debate_message_published',
  'debate_token_delta',
  'revote_started',
  'revote_judge_completed',
  'moderator_completed',
  'run_metrics',
  'appeal_started',
  'appeal_completed',
]);

const withPanel = (view: RunView, panel: Partial<PanelView>): RunView => ({ ...view, panel: { ...(view.panel ?? emptyPanelView()), ...panel } });

function withJudges(panel: PanelView, change: (card: JudgeCard) => JudgeCard): JudgeCard[] {
  return panel.judges.map(change);
}

const scoresOnto = (cards: JudgeCard[], scores: Partial<Record<JudgeRole, number>>): JudgeCard[] =>
  cards.map((c) => (typeof scores[c.judge] === 'number' ? { ...c, score: scores[c.judge] as number } : c));

/** The panel workflow's events. null: not one of them. */
export function foldPanelEvent(view: RunView, ev: RunEventEnvelope): RunView | null {
  // Stryker disable next-line ConditionalExpression: `if (false)` cannot change the result, the switch's default returns null for every other type (`if (true)` is killed)
  if (!PANEL_EVENT_TYPES.has(ev.type)) return null;
  const panel = view.panel ?? emptyPanelView();
  switch (ev.type) {
    case 'judges_dispatched': {
      const p = ev.payload as P<'judges_dispatched'>;
      const asked = new Set<string>(p.judges);
      const judges = withJudges(panel, (c) => (asked.has(c.judge) ? { ...c, state: 'dispatched' } : c));
      return withPanel(view, { judges, dispatches: [...panel.dispatches, p] });
    }
    case 'judge_verdict_completed': {
      const p = ev.payload as P<'judge_verdict_completed'>;
      const judges = withJudges(panel, (c) => (c.judge === p.judge ? { ...c, state: 'completed', verdict: p.verdict, score: p.verdict.score } : c));
      return withPanel(view, { judges });
    }
    case 'roast_panel_completed': {
      const p = ev.payload as P<'roast_panel_completed'>;
      const quality = p.quality ?? null;
      // Stryker disable next-line ArrayDeclaration: the fallback is read only without a quality check, and names no judge either way
      const weak = new Set<string>(quality?.weak_judges ?? []);
      const judges = scoresOnto(panel.judges, p.scores).map((c) => ({
        ...c,
        weak: weak.has(c.judge),
        genericRate: quality?.figures.generic_rates[c.judge] ?? null,
      }));
      return withPanel(view, { judges, roast: { scores: p.scores, quality } });
    }
    case 'panel_retry':
      return withPanel(view, { retries: [...panel.retries, ev.payload as P<'panel_retry'>] });
    case 'debate_token_delta': {
      // Upserts the speaker's turn of this round and appends the text; the published message freezes it.
      const p = ev.payload as P<'debate_token_delta'>;
      const i = panel.debate.findIndex((t) => t.streaming && t.speaker === p.speaker && t.round === p.round);
      const debate = panel.debate.slice();
      if (i < 0) debate.push({ speaker: p.speaker, round: p.round, message: p.delta, label: null, respondsTo: [], sequence: ev.sequence, streaming: true });
      else debate[i] = { ...debate[i], message: debate[i].message + p.delta };
      return withPanel(view, { debate });
    }
    case 'debate_message_published': {
      const p = ev.payload as P<'debate_message_published'>;
      const i = panel.debate.findIndex((t) => t.streaming && t.speaker === p.speaker && t.round === p.round);
      const turn = { speaker: p.speaker, round: p.round, message: p.message, label: p.label ?? null, respondsTo: p.responds_to ?? [], sequence: i < 0 ? ev.sequence : panel.debate[i].sequence, streaming: false };
      const debate = panel.debate.slice();
      if (i < 0) debate.push(turn);
      else debate[i] = turn;
      return withPanel(view, { debate });
    }
    case 'revote_started': {
      const p = ev.payload as P<'revote_started'>;
      return withPanel(view, { revoteBaseline: p.baseline });
    }
    case 'revote_judge_completed': {
      const p = ev.payload as P<'revote_judge_completed'>;
      // The delta is against the baseline the re-vote started from, which the event restates as `previous`.
      const previous = panel.revoteBaseline?.[p.judge] ?? p.previous;
      const revote = { previous, score: p.score, delta: p.score - previous, reason: p.change_reason ?? null, capped: p.capped ?? false };
      return withPanel(view, { judges: withJudges(panel, (c) => (c.judge === p.judge ? { ...c, score: p.score, revote } : c)) });
    }
    case 'moderator_completed':
      return withPanel(view, { moderator: (ev.payload as P<'moderator_completed'>).synthesis });
    case 'run_metrics':
      return withPanel(view, { metrics: ev.payload as P<'run_metrics'> });
    case 'appeal_started': {
      const p = ev.payload as P<'appeal_started'>;
      const appeal = { judges: p.judges, before: p.scores, caps: p.caps ?? null, after: null, changeReasons: {}, sequence: ev.sequence };
      return { ...withPanel(view, { appeals: [...panel.appeals, appeal] }), caps: raisedCaps(view.caps, p.caps) };
    }
    case 'appeal_completed': {
      const p = ev.payload as P<'appeal_completed'>;
      const appeals = panel.appeals.slice();
      const last = appeals[appeals.length - 1];
      const done = { after: p.scores, changeReasons: p.change_reasons ?? {} };
      if (last && last.after === null) appeals[appeals.length - 1] = { ...last, ...done };
      else appeals.push({ judges: p.judges, before: p.previous ?? {}, caps: null, ...done, sequence: ev.sequence });
      return withPanel(view, { appeals, judges: scoresOnto(panel.judges, p.scores) });
    }
    // Stryker disable next-line ConditionalExpression: unreachable (the gate above lets only the types with a case through), and emptied it returns undefined, which the reducer's `??` treats as null
    default:
      return null;
  }
}

/**
 * A judge's debate call that failed, or whose reply was not a valid turn, leaves no turn: the
 * text it streamed is dropped, so the try that follows (a repair, a retry, a fallback) streams
 * into a turn of its own and the view is what a replay of the log shows. Its deltas all came
 * before this event (the provider-worker sends them before it reports the try).
 */
export function dropAbandonedTurn(view: RunView, ev: RunEventEnvelope): RunView {
  if (ev.type !== 'agent_call_failed' && ev.type !== 'agent_call_completed') return view;
  const p = ev.payload as P<'agent_call_completed'> | P<'agent_call_failed'>;
  if (p.stage !== 'DEBATE' || ('valid' in p && p.valid)) return view;
  const debate = view.panel?.debate;
  if (!debate?.some((t) => t.streaming && t.speaker === p.role)) return view;
  return withPanel(view, { debate: debate.filter((t) => !(t.streaming && t.speaker === p.role)) });
}

const pending = (c: JudgeCard): boolean => c.state === 'waiting' || c.state === 'dispatched';

/**
 * A panel that ended before every judge answered: run_failed marks the judges still waiting or
 * thinking failed, a halt or a cancel marks them stopped — no verdict will come, so nothing spins.
 */
export function closePendingJudges(panel: PanelView | null, state: 'failed' | 'stopped'): PanelView | null {
  if (!panel || !panel.judges.some(pending)) return panel;
  return { ...panel, judges: panel.judges.map((c) => (pending(c) ? { ...c, state } : c)) };
}
