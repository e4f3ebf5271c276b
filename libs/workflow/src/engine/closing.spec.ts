import type { ProjectConfigInput } from '@roundtable/contracts';
import {
  BuildDriver,
  critiqueBody,
  implementationBody,
  proposalBody,
  reviewBody,
  synthesisBody,
  testConfig,
  testResult,
} from '../build/build-scenario.fixture';
import type { AgentCallCommand } from '../build/build-types';
import { PanelDriver, testPanelConfig } from '../panel/panel-scenario.fixture';

/**
 * Closing, through the workflows: a halt, the closing role's one call (on its own provider, or
 * its fallback when its own cannot answer this run), the fact-only close when no model can
 * write it, and what a closing call's own failure does.
 */

type Agents = ProjectConfigInput['agents'];

function withAgents(patch: Partial<Record<keyof Agents, Partial<Agents['proposer']>>>, overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const base = testConfig();
  const agents = Object.fromEntries(Object.entries(base.agents).map(([role, a]) => [role, { ...a, ...(patch[role as keyof Agents] ?? {}) }])) as Agents;
  return new BuildDriver(testConfig({ ...overrides, agents }));
}

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

/** P1 → C1 ACCEPT → I1 → tests pass → R1 ACCEPT: the synthesizer's S1 is pending (5 calls so far). */
function toSynthesis(d: BuildDriver): BuildDriver {
  d.begin();
  d.reply(proposalBody('P1'));
  d.reply(critiqueBody('P1', 'ACCEPT'));
  d.reply(implementationBody('P1'));
  d.applied();
  d.tests(testResult(0));
  d.reply(reviewBody('I1'));
  expect(pending(d)).toMatchObject({ role: 'synthesizer', label: 'S1', attempt: 1 });
  return d;
}

describe('engine: the closing call after a halt', () => {
  it("goes to the closing role's own provider when that provider is usable, even with a fallback configured", () => {
    const d = withAgents({ synthesizer: { fallback: 'openai', fallback_model: 'gpt-5' } }).begin();
    d.reply(proposalBody('P1'));
    const r = d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    expect(r.state.haltReason).toBe('critic call failed (PROVIDER_ERROR): xai: something the provider said');
    expect(pending(d)).toMatchObject({ role: 'synthesizer', provider: 'anthropic', model: 'claude-sonnet-4-5', label: 'S1' });
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(r.decisions.map((x) => [x.from, x.to])).toEqual([
      ['CRITIQUE', 'HALTED'],
      ['HALTED', 'SYNTHESIZE'],
    ]);
  });

  it('the halt decision names the failed call; the closing stage decision names nothing', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    const c1 = pending(d);
    const r = d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    expect(r.decisions).toEqual([
      { from: 'CRITIQUE', to: 'HALTED', reason: 'critic call failed (PROVIDER_ERROR): xai: something the provider said', refs: [c1.callId] },
      { from: 'HALTED', to: 'SYNTHESIZE', reason: 'partial synthesis after the halt: the synthesizer gets exactly one call, even over budget', refs: [] },
    ]);
    expect(r.events.filter((e) => e.type === 'run_halted')).toEqual([{ type: 'run_halted', payload: { reason: r.state.haltReason } }]);
  });

  it("on a fallback the closing call's decision refs nothing and the call keeps the closing spec's model when no fallback_model is set", () => {
    const d = withAgents({ synthesizer: { fallback: 'openai' } }).begin();
    const r = d.fail('AUTH', 'anthropic: HTTP 401 authentication_error: invalid x-api-key');
    expect(pending(d)).toMatchObject({ role: 'synthesizer', provider: 'openai', model: 'claude-sonnet-4-5', label: 'S1', attempt: 1 });
    const reason = "the synthesizer's provider anthropic rejected its API key (AUTH); asking the synthesizer's fallback provider openai/claude-sonnet-4-5 instead";
    expect(r.decisions.find((x) => x.reason === reason)).toEqual({ from: 'SYNTHESIZE', to: 'SYNTHESIZE', reason, refs: [] });
  });

  it('a fallback that is the closing provider itself is no fallback: the close is fact-only', () => {
    const d = withAgents({ synthesizer: { fallback: 'anthropic' } }).begin();
    const r = d.fail('USAGE_LIMIT', 'anthropic: usage limit');
    expect(r.commands).toEqual([]);
    expect(d.decisions.at(-1)?.reason).toBe("fact-only report: the synthesizer's provider anthropic reported a usage limit");
  });

  it("a blocked closing provider whose fallback has reached its own cap → the fact-only close, naming both", () => {
    // The proposer's AUTH on anthropic blocks the synthesizer's provider; P1 then uses openai's one call.
    const d = withAgents(
      { proposer: { fallback: 'openai' }, synthesizer: { fallback: 'openai' } },
      { budget: { per_provider: { openai: { max_calls: 1 } } } },
    ).begin();
    d.fail('AUTH', 'anthropic: HTTP 401');
    expect(pending(d)).toMatchObject({ role: 'proposer', provider: 'openai' });
    d.reply(proposalBody('P1'));
    const r = d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    expect(r.commands).toEqual([]);
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(d.decisions.at(-1)?.reason).toBe(
      "fact-only report: the synthesizer's provider anthropic rejected its API key (AUTH), and its fallback provider openai has reached its own budget cap",
    );
  });

  it("the closing provider at its own cap → the fact-only close, whatever its fallback", () => {
    const d = withAgents({ synthesizer: { fallback: 'openai' } }, { budget: { per_provider: { anthropic: { max_calls: 1 } } } }).begin();
    d.reply(proposalBody('P1'));
    const r = d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    expect(r.commands).toEqual([]);
    expect(d.decisions.at(-1)?.reason).toBe("fact-only report: the synthesizer's provider anthropic has reached its own budget cap");
  });

  it('a closing repair the budget refuses becomes the closing call after the halt: the repair itself, over budget', () => {
    const d = toSynthesis(new BuildDriver(testConfig({ budget: { max_calls: 5 } })));
    const s1 = pending(d);
    const r = d.invalid('overall_verdict: Invalid option', { overall_verdict: 'MAYBE' });
    expect(r.state.haltReason).toBe('max_calls reached: 5 of 5 calls used or in flight');
    expect(r.decisions[0]).toMatchObject({ from: 'SYNTHESIZE', to: 'HALTED', refs: ['max_calls'] });
    const repair = pending(d);
    expect(repair).toMatchObject({ role: 'synthesizer', label: 'S1', attempt: 2, repairOf: s1.callId, contextRefs: [s1.callId] });
    expect(repair.messages.slice(0, -2)).toEqual(s1.messages);
    expect(repair.messages.at(-2)).toEqual({ role: 'assistant', content: '{"overall_verdict":"MAYBE"}' });
    // Its reply is the partial synthesis.
    d.reply(synthesisBody('REJECT'));
    expect(d.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(d.state.synthesis).toMatchObject({ label: 'S1', partial: true, callId: repair.callId });
  });

  it("the closing role's own call failing for good (no halt yet) → halted with the call named, and the fact-only report", () => {
    const d = toSynthesis(new BuildDriver(testConfig()));
    const s1 = pending(d);
    const r = d.fail('PROVIDER_ERROR', 'anthropic: bad gateway body');
    expect(r.commands).toEqual([]);
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted', haltReason: 'synthesizer call failed (PROVIDER_ERROR): anthropic: bad gateway body' });
    expect(r.decisions).toEqual([
      { from: 'SYNTHESIZE', to: 'HALTED', reason: 'synthesizer call failed (PROVIDER_ERROR): anthropic: bad gateway body', refs: [s1.callId] },
      // The report stands in for S1, the call that failed: it takes S1's label (issue 22: it was S2, and a resume then asked S3).
      { from: 'HALTED', to: 'DONE', reason: 'fact-only report: the synthesizer failed, so no model wrote the report', refs: ['S1'] },
    ]);
    expect(r.events.map((e) => e.type)).toContain('run_halted');
  });

  it('the closing call after a halt failing → the fact-only report, with no repair', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    const r = d.invalid('overall_verdict: Invalid option');
    expect(r.commands).toEqual([]);
    expect(d.decisions.at(-1)?.reason).toBe('fact-only report: the partial synthesis failed (SCHEMA_INVALID: overall_verdict: Invalid option)');
  });
});

describe('engine: retries after a halt', () => {
  it("the closing call's transient failure is retried when the budget has room", () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    const s1 = pending(d);
    d.fail('SERVER_ERROR', 'anthropic: HTTP 500', { retryable: true });
    expect(pending(d)).toMatchObject({ role: 'synthesizer', label: 'S1', retry: 1, retryOf: s1.callId, delayMs: 3000 });
  });

  it("the closing call's retry is never exempt: refused by the budget, the failure is final and the close is fact-only", () => {
    // P1 and C1 fill max_calls 2; the synthesizer's one call is the exempt third.
    const d = new BuildDriver(testConfig({ budget: { max_calls: 2 } })).begin();
    d.reply(proposalBody('P1'));
    d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    const s1 = pending(d);
    const r = d.fail('SERVER_ERROR', 'anthropic: HTTP 500', { retryable: true });
    expect(r.commands).toEqual([]);
    expect(d.calls.filter((c) => c.retryOf === s1.callId)).toEqual([]);
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(d.decisions.at(-1)?.reason).toBe('fact-only report: the partial synthesis failed (SERVER_ERROR: anthropic: HTTP 500)');
    expect(r.events.filter((e) => e.type === 'run_halted')).toEqual([]);
  });

  it("a judge's transient failure after the halt is not asked again: the moderator's call follows once nothing is in flight", () => {
    const d = new PanelDriver(testPanelConfig());
    d.start();
    d.step({ type: 'halt', reason: 'operator halt' });
    expect(d.pendingRoles()).toHaveLength(5);
    const r = d.fail('vc', 'SERVER_ERROR', 'anthropic: HTTP 500', { retryable: true, retry: 0 });
    expect(r.commands).toEqual([]);
    expect(d.calls.filter((c) => c.retryOf !== undefined)).toEqual([]);
    for (const judge of ['competitor', 'customer', 'pm', 'engineer'] as const) d.fail(judge, 'SERVER_ERROR', 'HTTP 500', { retryable: true, retry: 0 });
    expect(d.calls.filter((c) => c.retryOf !== undefined)).toEqual([]);
    expect(d.pendingRoles()).toEqual(['moderator']);
  });
});

describe('engine: transient retries, the delay', () => {
  const criticPending = () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    return d;
  };

  it.each([Number.NaN, Number.POSITIVE_INFINITY, null])('a retry-after of %s is no hint: the backoff applies', (retryAfterMs) => {
    const d = criticPending();
    d.fail('RATE_LIMITED', 'xai: HTTP 429', { retryable: true, retry: 0, retryAfterMs });
    expect(pending(d)).toMatchObject({ retry: 1, delayMs: 3000 });
  });

  it('a retry-after is rounded to whole ms and never negative', () => {
    const d = criticPending();
    d.fail('RATE_LIMITED', 'xai: HTTP 429', { retryable: true, retry: 0, retryAfterMs: 1234.6 });
    expect(pending(d)).toMatchObject({ retry: 1, delayMs: 1235 });
    d.fail('RATE_LIMITED', 'xai: HTTP 429', { retryable: true, retry: 1, retryAfterMs: -50 });
    expect(pending(d)).toMatchObject({ retry: 2, delayMs: 0 });
  });

  it('a retry refused before a halt halts naming the cap', () => {
    const d = new BuildDriver(testConfig({ budget: { max_calls: 2 } })).begin();
    d.reply(proposalBody('P1'));
    const r = d.fail('SERVER_ERROR', 'xai: HTTP 500', { retryable: true, retry: 0 });
    expect(r.decisions[0]).toMatchObject({ from: 'CRITIQUE', to: 'HALTED', refs: ['max_calls'] });
  });
});

describe('engine: what a halt remembers and names', () => {
  it('a provider found unusable keeps its first reason for the rest of the run', () => {
    // anthropic rejects the proposer's key (AUTH); later the reviser, on anthropic too, reports a usage limit.
    const d = withAgents({ proposer: { fallback: 'openai' } }).begin();
    d.fail('AUTH', 'anthropic: HTTP 401');
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'REVISE'));
    expect(pending(d)).toMatchObject({ role: 'reviser', provider: 'anthropic' });
    const r = d.fail('USAGE_LIMIT', 'anthropic: usage limit');
    expect(r.state.unusableProviders).toEqual({ anthropic: 'AUTH' });
    expect(d.decisions.at(-1)?.reason).toBe("fact-only report: the synthesizer's provider anthropic rejected its API key (AUTH)");
  });

  it("the reconciler's halt names no call: its decision refs nothing", () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    const r = d.step({ type: 'halt', reason: 'reconciler: nothing in flight' });
    expect(r.decisions[0]).toEqual({ from: 'CRITIQUE', to: 'HALTED', reason: 'reconciler: nothing in flight', refs: [] });
  });

  it("a fresh closing call the budget refuses is not reused: the closing call is written after the halt, and knows it", () => {
    // max_calls 4: R1 is the 4th call, the synthesizer's would be the 5th.
    const d = new BuildDriver(testConfig({ budget: { max_calls: 4 } })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    d.reply(implementationBody('P1'));
    d.applied();
    d.tests(testResult(0));
    const r = d.reply(reviewBody('I1'));
    expect(r.state.haltReason).toBe('max_calls reached: 4 of 4 calls used or in flight');
    const s1 = pending(d);
    expect(s1).toMatchObject({ role: 'synthesizer', label: 'S1', attempt: 1, repairOf: null });
    expect(d.prompt()).toContain('max_calls reached: 4 of 4 calls used or in flight');
  });

  it('a repair or a retry takes no label of its own: only the call number moves', () => {
    const d = new BuildDriver(testConfig()).begin();
    const before = { ...d.state.counters };
    d.invalid('claim: Required');
    d.fail('SERVER_ERROR', 'anthropic: HTTP 500', { retryable: true });
    expect(d.state.counters).toEqual({ ...before, call: before.call + 2 });
  });
});

describe('engine: a fact-only close stands in for the closing call it replaces, so labels stay gap-free (issue 22)', () => {
  /** An over-budget halt in CRITIQUE (max_calls 2: P1, C1; the reviser's P2 is refused): the synthesizer's S1 is the closing call. */
  function overBudgetHalt(): BuildDriver {
    const d = new BuildDriver(testConfig({ budget: { max_calls: 2 } })).begin();
    d.reply(proposalBody('P1'));
    const r = d.reply(critiqueBody('P1', 'REVISE'));
    expect(r.state.haltReason).toBe('max_calls reached: 2 of 2 calls used or in flight');
    expect(pending(d)).toMatchObject({ role: 'synthesizer', label: 'S1' });
    return d;
  }

  /** Resumed with room, at SYNTHESIZE: the synthesizer's next call. */
  function resumeToSynthesis(d: BuildDriver): AgentCallCommand {
    d.step({ type: 'resume', at: 'SYNTHESIZE', rerun: false, caps: { max_calls: 20 } });
    return pending(d);
  }

  it('the closing call S1 fails after an over-budget halt: the fact-only report is S1, and the resumed run asks S2 (not S3)', () => {
    const d = overBudgetHalt();
    const r = d.invalid('overall_verdict: Required');
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(r.state.synthesis).toEqual({ id: 'run1-S1', label: 'S1', callId: null, partial: true, body: null });
    expect(r.events).toContainEqual({ type: 'synthesis_recorded', payload: { label: 'S1', verdict: null, partial: true } });
    expect(r.decisions.at(-1)).toMatchObject({ to: 'DONE', refs: ['S1'] });
    expect(resumeToSynthesis(d)).toMatchObject({ role: 'synthesizer', label: 'S2' });
    expect(d.calls.filter((c) => c.role === 'synthesizer').map((c) => c.label)).toEqual(['S1', 'S2']);
  });

  it("a halt while the closing call is in flight (the reconciler's next sweep) closes fact-only under that call's label", () => {
    const d = overBudgetHalt();
    const r = d.step({ type: 'halt', reason: 'reconciler: nothing in flight and no step for 300 s; resume the run to continue' });
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(r.state.synthesis).toMatchObject({ label: 'S1', callId: null, partial: true });
    expect(resumeToSynthesis(d)).toMatchObject({ label: 'S2' });
  });

  it("the synthesizer's own call failing for good before any halt: the fact-only report takes its label", () => {
    const d = toSynthesis(new BuildDriver(testConfig()));
    const r = d.fail('PROVIDER_ERROR', 'anthropic: bad gateway body');
    expect(r.state.synthesis).toMatchObject({ label: 'S1', callId: null });
    expect(resumeToSynthesis(d)).toMatchObject({ label: 'S2' });
  });

  it('a fact-only close with no closing call asked (its provider at its cap) takes the next label: S1, then S2 on resume', () => {
    const d = new BuildDriver(testConfig({ budget: { per_provider: { anthropic: { max_calls: 1 } } } })).begin();
    d.reply(proposalBody('P1'));
    const r = d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    expect(r.state.synthesis).toMatchObject({ label: 'S1', callId: null });
    expect(d.calls.filter((c) => c.role === 'synthesizer')).toEqual([]);
    d.step({ type: 'resume', at: 'SYNTHESIZE', rerun: false, caps: {} });
    expect(d.state.status).toBe('halted');
    expect(d.state.synthesis).toMatchObject({ label: 'S2', callId: null });
  });

  it("the reconciler's halt of a build whose S1 will never report: the closing call is S2 now, and S1 landing late changes nothing", () => {
    const d = toSynthesis(new BuildDriver(testConfig()));
    const s1 = pending(d);
    d.step({ type: 'halt', reason: 'reconciler: nothing in flight and no step for 300 s; resume the run to continue' });
    const s2 = pending(d);
    expect(s2).toMatchObject({ role: 'synthesizer', label: 'S2' });
    // The stuck call answers after all: not the call awaited.
    d.pendingCall = s1;
    const late = d.reply(synthesisBody('ACCEPT'));
    expect({ events: late.events, commands: late.commands }).toEqual({ events: [], commands: [] });
    d.pendingCall = s2;
    const r = d.invalid('overall_verdict: Required');
    expect(r.state.synthesis).toMatchObject({ label: 'S2', callId: null, partial: true });
  });

  it("the panel's moderator M1 failing after a halt: the fact-only close is M1", () => {
    const d = new PanelDriver(testPanelConfig());
    d.start();
    d.step({ type: 'halt', reason: 'operator halt' });
    for (const judge of ['vc', 'engineer', 'pm', 'customer', 'competitor'] as const) d.fail(judge, 'PROVIDER_ERROR', 'HTTP 400');
    expect(d.pending('moderator')).toMatchObject({ label: 'M1' });
    const r = d.fail('moderator', 'PROVIDER_ERROR', 'anthropic: HTTP 400');
    expect(r.state.moderator).toMatchObject({ label: 'M1', callId: null, partial: true });
  });
});
