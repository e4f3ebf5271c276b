import type { RunEventEnvelope, RunEventPayload } from '@roundtable/contracts';
import { envelope } from './event-samples.fixture';
import { foldRunEvent, foldRunEvents } from './fold-run-event';

const facts = (callId: string) => ({ call_id: callId, stage: 'CRITIQUE', role: 'critic', provider: 'openai', model: 'gpt', attempt: 1 });
const queued = (sequence: number, callId: string): RunEventEnvelope => envelope('agent_call_queued', sequence, facts(callId));
const completed = (sequence: number, callId: string, extra: Partial<RunEventPayload<'agent_call_completed'>> = {}): RunEventEnvelope =>
  envelope('agent_call_completed', sequence, { ...facts(callId), valid: true, ...extra });
const failed = (sequence: number, callId: string): RunEventEnvelope => envelope('agent_call_failed', sequence, { ...facts(callId), error: 'rate limited' });

describe('the calls and their usage', () => {
  it('sums the cost of the priced calls and counts the unpriced ones apart (never a guessed 0)', () => {
    const v = foldRunEvents([
      completed(1, 'a', { input_tokens: 10, output_tokens: 5, cost_usd: 0.25 }),
      completed(2, 'b', { input_tokens: 20, output_tokens: 1, cost_usd: 0.5 }),
      completed(3, 'c', { input_tokens: 7 }),
      failed(4, 'd'),
    ]);
    expect(v.usage).toEqual({ calls: 4, failedCalls: 1, tokens: 43, costUsd: 0.75, unpricedCalls: 1 });
  });

  it('has no cost while no ended call had a price, and counts a completed call without figures as unpriced', () => {
    const v = foldRunEvents([completed(1, 'a'), failed(2, 'b')]);
    expect(v.usage).toEqual({ calls: 2, failedCalls: 1, tokens: 0, costUsd: null, unpricedCalls: 1 });
    expect(v.calls[0]).toMatchObject({ inputTokens: null, outputTokens: null, costUsd: null, latencyMs: null, gist: null, label: null });
    expect(v.calls[1]).toMatchObject({ state: 'failed', error: 'rate limited', errorCode: null, valid: null });
  });

  it('a call priced at 0 is priced', () => {
    expect(foldRunEvents([completed(1, 'a', { cost_usd: 0 })]).usage).toMatchObject({ costUsd: 0, unpricedCalls: 0 });
  });

  it('keeps each call queued in order, and one entry per call even if its queueing is redelivered', () => {
    const v = foldRunEvents([queued(1, 'a'), queued(2, 'b'), queued(3, 'a')]);
    expect(v.calls.map((c) => [c.callId, c.state])).toEqual([
      ['a', 'queued'],
      ['b', 'queued'],
    ]);
    expect(v.usage.calls).toBe(0);
  });

  it('completes the call it names, whichever it is', () => {
    const v = foldRunEvents([queued(1, 'a'), queued(2, 'b'), completed(3, 'b'), failed(4, 'a')]);
    expect(v.calls.map((c) => [c.callId, c.state, c.queuedAt, c.finishedAt])).toEqual([
      ['a', 'failed', envelope('agent_call_queued', 1).created_at, envelope('agent_call_failed', 4).created_at],
      ['b', 'completed', envelope('agent_call_queued', 2).created_at, envelope('agent_call_completed', 3).created_at],
    ]);
  });

  it('counts a call once whichever end is reported again (a redelivered failure, a failure after completion)', () => {
    const v = foldRunEvents([queued(1, 'a'), failed(2, 'a'), failed(3, 'a'), completed(4, 'b', { cost_usd: 0.1 }), failed(5, 'b')]);
    expect(v.usage).toEqual({ calls: 2, failedCalls: 1, tokens: 0, costUsd: 0.1, unpricedCalls: 0 });
  });

  it('does not change the view it is given when a call it holds ends', () => {
    const v = foldRunEvents([queued(1, 'a'), queued(2, 'b')]);
    const copy = JSON.parse(JSON.stringify(v));
    foldRunEvent(v, failed(3, 'b'));
    foldRunEvent(v, completed(3, 'a'));
    expect(v).toEqual(copy);
  });
});
