import type { ProjectConfigInput } from '@roundtable/contracts';
import { BuildDriver, critiqueBody, proposalBody, testConfig } from '../build/build-scenario.fixture';
import type { AgentCallCommand } from '../build/build-types';
import { PanelDriver, testPanelConfig } from '../panel/panel-scenario.fixture';
import { DEFAULT_RETRY_DELAYS_MS, retryDelay } from './retries';

/**
 * Retries are the engine's (issue 13 item 2): a failed try the provider-worker calls retryable
 * is asked again as a new call through the ledger (budget-checked, reserved), delayed by the
 * backoff, once per configured delay; after that, or for a failure not worth retrying, the
 * reply path goes on as before (fallback, give up).
 */

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

/** A transient failure of the pending call, as the provider-worker reports it. */
const transient = (d: BuildDriver, code = 'SERVER_ERROR', extra: { retryAfterMs?: number } = {}) =>
  d.fail(code, `openai: HTTP 500 ${code}`, { retry: pending(d).retry ?? 0, retryable: true, ...extra });

function criticOn(overrides: Partial<ProjectConfigInput> = {}, critic: Record<string, unknown> = {}): BuildDriver {
  const base = testConfig();
  const agents = { ...base.agents, critic: { ...base.agents.critic, ...critic } } as ProjectConfigInput['agents'];
  const d = new BuildDriver(testConfig({ ...overrides, agents })).begin();
  d.reply(proposalBody('P1'));
  return d;
}

describe('engine: transient retries', () => {
  it('a retryable failure → the same call again as a new call, retry 1 of the failed try, delayed by the first backoff', () => {
    const d = criticOn();
    const c1 = pending(d);
    const r = transient(d);
    const again = pending(d);
    expect(again.callId).not.toBe(c1.callId);
    expect(again).toMatchObject({ role: 'critic', label: 'C1', provider: c1.provider, model: c1.model, attempt: 1, repairOf: null, retry: 1, retryOf: c1.callId, delayMs: 3000 });
    expect(again.messages).toEqual(c1.messages);
    // A retry is a call: reserved like any other, and queued with its own event after the failed try's.
    expect(again.reservedTokens).toBe(c1.reservedTokens);
    expect(r.events.map((e) => e.type)).toEqual(['agent_call_failed', 'agent_call_queued']);
    expect(r.decisions).toEqual([]);

    // Each further retry waits the next backoff; the retry's reply is the awaited one.
    transient(d);
    expect(pending(d)).toMatchObject({ retry: 2, delayMs: 9000 });
    transient(d);
    expect(pending(d)).toMatchObject({ retry: 3, delayMs: 27000 });
    d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(d.state.critiques.map((c) => c.label)).toEqual(['C1']);
    expect(d.state.stage).toBe('IMPLEMENT');
  });

  it("a 429's retry-after, when the provider sent one, is the delay instead of the backoff", () => {
    const d = criticOn();
    transient(d, 'RATE_LIMITED', { retryAfterMs: 600 });
    expect(pending(d)).toMatchObject({ retry: 1, delayMs: 600 });
  });

  it('a retry refused by the budget halts the run like any refused call; the closing call still gets its one call', () => {
    // Two calls so far (P1, C1): max_calls 2 leaves no room for C1's retry.
    const d = criticOn({ budget: { max_calls: 2 } });
    const c1 = pending(d);
    const r = transient(d);
    expect(r.state.haltReason).toMatch(/max_calls/);
    expect(r.events.map((e) => e.type)).toEqual(expect.arrayContaining(['agent_call_failed', 'run_halted']));
    // No retry was queued: the only call now is the synthesizer's exempt one.
    expect(d.calls.filter((c) => c.retryOf === c1.callId)).toEqual([]);
    expect(pending(d)).toMatchObject({ role: 'synthesizer' });
  });

  it('a failure the provider-worker calls not retryable is not retried: the fallback takes it as before', () => {
    const d = criticOn({}, { fallback: 'anthropic' });
    const c1 = pending(d);
    d.fail('AUTH', 'xai: HTTP 401: Incorrect API key provided', { retryable: false });
    expect(pending(d)).toMatchObject({ role: 'critic', provider: 'anthropic', contextRefs: [c1.callId] });
    expect(pending(d).retryOf).toBeUndefined();
  });

  it('a failure not retryable and no fallback → the run halts naming the failure', () => {
    const d = criticOn();
    const r = d.fail('AUTH', 'xai: HTTP 401: Incorrect API key provided', { retryable: false });
    expect(r.state.haltReason).toContain('AUTH');
    expect(d.calls.some((c) => c.retry !== undefined)).toBe(false);
  });

  it('retries exhausted → the fallback provider, as a decision naming the retries', () => {
    const d = criticOn({}, { fallback: 'anthropic' });
    for (let i = 0; i < DEFAULT_RETRY_DELAYS_MS.length; i += 1) transient(d);
    const last = pending(d);
    expect(last.retry).toBe(3);
    const r = transient(d);
    expect(pending(d)).toMatchObject({ provider: 'anthropic' });
    expect(pending(d).retryOf).toBeUndefined();
    expect(r.decisions[0].reason).toContain('after 3 retries');
    expect(d.calls.filter((c) => c.retry !== undefined)).toHaveLength(3);
  });

  it('retryDelay: none for a completed try, a non-retryable one, or with no retries left', () => {
    expect(retryDelay({ status: 'completed', retryable: true, retry: 0 }, [5])).toBeNull();
    expect(retryDelay({ status: 'failed', retryable: false, retry: 0 }, [5])).toBeNull();
    expect(retryDelay({ status: 'failed', retryable: true, retry: 1 }, [5])).toBeNull();
    expect(retryDelay({ status: 'failed', retryable: true, retry: 0 }, [])).toBeNull();
    expect(retryDelay({ status: 'failed', retryable: true, retry: 0 }, [5])).toBe(5);
  });
});

describe('engine: transient retries, in the panel (parallel judges)', () => {
  it("a judge's retryable failure is retried while the others are in flight; its reply completes the roast", () => {
    const d = new PanelDriver(testPanelConfig());
    d.start();
    const first = d.pending('vc');
    const r = d.fail('vc', 'SERVER_ERROR', 'anthropic: HTTP 500', { retryable: true, retry: 0 });
    const again = d.pending('vc');
    expect(again).toMatchObject({ role: 'vc', label: first.label, retry: 1, retryOf: first.callId, delayMs: DEFAULT_RETRY_DELAYS_MS[0] });
    expect(r.events.map((e) => e.type)).toEqual(['agent_call_failed', 'agent_call_queued']);
    // Every judge replies, the vc through its retry: that reply completes the roast.
    d.roast();
    expect(d.state.stage).not.toBe('ROAST');
    expect(d.calls.filter((c) => c.retryOf !== undefined)).toHaveLength(1);
  });
});
