import type { RunEventEnvelope, RunEventPayload } from '@roundtable/contracts';
import type { CallView, EventUsage, RunView } from './run-view';

type Queued = RunEventPayload<'agent_call_queued'>;

function callOf(p: Queued, at: string): CallView {
  return {
    callId: p.call_id,
    stage: p.stage,
    role: p.role,
    provider: p.provider,
    model: p.model,
    attempt: p.attempt,
    label: p.label ?? null,
    state: 'queued',
    valid: null,
    inputTokens: null,
    outputTokens: null,
    costUsd: null,
    latencyMs: null,
    gist: null,
    error: null,
    errorCode: null,
    queuedAt: at,
    finishedAt: null,
  };
}

/** Replaces the call with this id (or appends it: a view folded from `?after=` may not have seen it queued). */
function withCall(view: RunView, facts: Queued, at: string, change: (c: CallView) => CallView): CallView[] {
  const i = view.calls.findIndex((c) => c.callId === facts.call_id);
  if (i < 0) return [...view.calls, change(callOf(facts, at))];
  const calls = view.calls.slice();
  calls[i] = change(calls[i]);
  return calls;
}

const ended = (view: RunView, callId: string): boolean => view.calls.some((c) => c.callId === callId && c.state !== 'queued');

function countEnded(u: EventUsage, p: { tokens: number; costUsd: number | null | undefined; failed: boolean }): EventUsage {
  const priced = typeof p.costUsd === 'number';
  return {
    calls: u.calls + 1,
    failedCalls: u.failedCalls + (p.failed ? 1 : 0),
    tokens: u.tokens + p.tokens,
    costUsd: priced ? (u.costUsd ?? 0) + (p.costUsd as number) : u.costUsd,
    unpricedCalls: u.unpricedCalls + (!p.failed && !priced ? 1 : 0),
  };
}

/** The three call events: the timeline's rows and the usage tally. null: not a call event. */
export function foldCallEvent(view: RunView, ev: RunEventEnvelope): RunView | null {
  switch (ev.type) {
    case 'agent_call_queued': {
      const p = ev.payload as Queued;
      if (view.calls.some((c) => c.callId === p.call_id)) return view;
      return { ...view, calls: [...view.calls, callOf(p, ev.created_at)] };
    }
    case 'agent_call_completed': {
      const p = ev.payload as RunEventPayload<'agent_call_completed'>;
      // A fork's copy was billed to the run it was copied from: never this run's usage.
      const counted = ended(view, p.call_id) || Boolean(p.copied_from);
      const calls = withCall(view, p, ev.created_at, (c) => ({
        ...c,
        state: 'completed',
        valid: p.valid,
        inputTokens: p.input_tokens ?? null,
        outputTokens: p.output_tokens ?? null,
        costUsd: p.cost_usd ?? null,
        latencyMs: p.latency_ms ?? null,
        gist: p.gist ?? null,
        finishedAt: ev.created_at,
        ...(p.copied_from ? { copiedFrom: p.copied_from } : {}),
      }));
      const tokens = (p.input_tokens ?? 0) + (p.output_tokens ?? 0);
      return { ...view, calls, usage: counted ? view.usage : countEnded(view.usage, { tokens, costUsd: p.cost_usd, failed: false }) };
    }
    case 'agent_call_failed': {
      const p = ev.payload as RunEventPayload<'agent_call_failed'>;
      const counted = ended(view, p.call_id) || Boolean(p.copied_from);
      const calls = withCall(view, p, ev.created_at, (c) => ({
        ...c,
        state: 'failed',
        error: p.error,
        errorCode: p.error_code ?? null,
        finishedAt: ev.created_at,
        ...(p.copied_from ? { copiedFrom: p.copied_from } : {}),
      }));
      return { ...view, calls, usage: counted ? view.usage : countEnded(view.usage, { tokens: 0, costUsd: null, failed: true }) };
    }
    // Stryker disable next-line ConditionalExpression: emptied, the switch ends and the function returns undefined, which the reducer's `??` chain treats as null
    default:
      return null;
  }
}
