import type { ProjectConfigInput } from '@roundtable/contracts';
import { BuildDriver, critiqueBody, proposalBody, synthesisBody, testConfig } from './build-scenario.fixture';
import type { AgentCallCommand } from './build-types';

type Agents = ProjectConfigInput['agents'];

/** The critic on xai, falling back to anthropic (optionally with its own model); P1 is recorded and C1 is pending. */
function criticWithFallback(critic: Partial<Agents['critic']> = {}, overrides: Partial<ProjectConfigInput> = {}): BuildDriver {
  const base = testConfig();
  const agents = { ...base.agents, critic: { ...base.agents.critic, fallback: 'anthropic', ...critic } } as Agents;
  const d = new BuildDriver(testConfig({ ...overrides, agents })).begin();
  d.reply(proposalBody('P1'));
  return d;
}

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

describe('build workflow: fallback provider', () => {
  it('a usage limit on the role provider → the same call on the fallback, as a recorded decision and event', () => {
    const d = criticWithFallback();
    const c1 = pending(d);
    expect(c1).toMatchObject({ provider: 'xai', model: 'grok-4', label: 'C1' });
    const r = d.fail('USAGE_LIMIT', 'xai: HTTP 429 insufficient_quota: You exceeded your current quota');

    const again = pending(d);
    expect(again).toMatchObject({ role: 'critic', stage: 'CRITIQUE', label: 'C1', provider: 'anthropic', model: 'grok-4', attempt: 1, repairOf: null });
    expect(again.callId).not.toBe(c1.callId);
    expect(again.messages).toEqual(c1.messages);
    expect(again.contextRefs).toEqual([c1.callId]);

    const reason =
      'critic call on xai/grok-4 failed (USAGE_LIMIT): xai: HTTP 429 insufficient_quota: You exceeded your current quota; ' +
      'asking the fallback provider anthropic/grok-4 instead';
    expect(r.decisions).toEqual([{ from: 'CRITIQUE', to: 'CRITIQUE', reason, refs: [c1.callId] }]);
    expect(r.events).toContainEqual({ type: 'provider_fallback', payload: { role: 'critic', from: 'xai', to: 'anthropic', reason } });
    expect(r.events.map((e) => e.type)).toEqual(['agent_call_failed', 'provider_fallback', 'agent_call_queued']);
    expect(r.state).toMatchObject({ status: 'running', stage: 'CRITIQUE', haltReason: null });

    // The fallback's reply is C1, and the run goes on as if nothing happened.
    d.reply(critiqueBody('P1', 'ACCEPT'));
    expect(d.state.stage).toBe('IMPLEMENT');
    expect(d.state.critiques.map((c) => c.label)).toEqual(['C1']);
  });

  it('asks the fallback for fallback_model when one is set', () => {
    const d = criticWithFallback({ fallback_model: 'claude-opus-4-1' });
    const r = d.fail('AUTH', 'xai: HTTP 401: Incorrect API key provided');
    expect(pending(d)).toMatchObject({ provider: 'anthropic', model: 'claude-opus-4-1' });
    expect(r.decisions[0].reason).toContain('asking the fallback provider anthropic/claude-opus-4-1 instead');
  });

  it.each([
    ['NOT_FOUND', 0],
    ['SERVER_ERROR', 3],
    ['TIMEOUT', 3],
    ['RATE_LIMITED', 3],
    ['NETWORK', 2],
    ['PROVIDER_ERROR', 1], // a retryable oddity (a body that is not JSON) that outlasted its retries
  ])('%s after %i retries → the fallback', (code, retry) => {
    const d = criticWithFallback();
    const r = d.fail(code, `xai: ${code}`, { retry });
    expect(pending(d)).toMatchObject({ provider: 'anthropic', label: 'C1' });
    if (retry > 0) expect(r.decisions[0].reason).toContain(`after ${retry} ${retry === 1 ? 'retry' : 'retries'}`);
  });

  it.each(['CLI_FAILED', 'PROVIDER_ERROR', 'REPLAY_GUARD'])('%s never retried → halts, no fallback', (code) => {
    const d = criticWithFallback();
    const r = d.fail(code, 'xai: something the provider said');
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(r.state.haltReason).toBe(`critic call failed (${code}): xai: something the provider said`);
  });

  it('a schema failure gets its repair on the same provider, not the fallback', () => {
    const d = criticWithFallback();
    d.invalid('verdict: Invalid option');
    expect(pending(d)).toMatchObject({ provider: 'xai', attempt: 2, label: 'C1' });
  });

  it('only once per call chain: the fallback failing too halts with the fallback provider words', () => {
    const d = criticWithFallback();
    d.fail('USAGE_LIMIT', 'xai: HTTP 429: You exceeded your current quota');
    const r = d.fail('SERVER_ERROR', 'anthropic: HTTP 500 api_error: Internal server error', { retry: 3 });
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(d.state.haltReason).toBe('critic call failed (SERVER_ERROR): anthropic: HTTP 500 api_error: Internal server error');
    expect(d.path).toEqual(['PROPOSE', 'CRITIQUE', 'CRITIQUE', 'HALTED', 'SYNTHESIZE']);
  });

  it('a repair that fails on a usage limit moves to the fallback as the repair (attempt 2): a schema failure there is final', () => {
    const d = criticWithFallback();
    d.invalid('verdict: Invalid option');
    const repair = pending(d);
    d.fail('USAGE_LIMIT', 'xai: usage limit');
    const fb = pending(d);
    expect(fb).toMatchObject({ provider: 'anthropic', attempt: 2, label: 'C1' });
    expect(fb.messages).toEqual(repair.messages);
    d.invalid('verdict: Invalid option');
    expect(d.state.haltReason).toMatch(/^FAILED_SCHEMA: critic reply failed its schema twice/);
  });

  it('without a fallback a usage limit halts as before', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    const r = d.fail('USAGE_LIMIT', 'xai: usage limit');
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(d.state.haltReason).toBe('critic call failed (USAGE_LIMIT): xai: usage limit');
  });

  it('the fallback call is budget-checked against the fallback provider caps', () => {
    const d = criticWithFallback({}, { budget: { per_provider: { anthropic: { max_calls: 1 } } } });
    // The proposer's P1 already used anthropic's only call.
    const r = d.fail('USAGE_LIMIT', 'xai: usage limit');
    expect(r.events.map((e) => e.type)).toContain('provider_fallback');
    expect(d.state.haltReason).toMatch(/per_provider\.anthropic\.max_calls/);
    expect(d.calls.filter((c) => c.role === 'critic' && c.provider === 'anthropic')).toEqual([]);
  });
});

describe('build workflow: calls the provider-worker retried', () => {
  it('reports every failed try before the completed one, and applies the reply', () => {
    const d = new BuildDriver(testConfig()).begin();
    const p1 = pending(d);
    const r = d.replyAfterRetries(proposalBody('P1'), [
      { id: 'run1-c7', error: 'anthropic: HTTP 500 api_error: Internal server error', errorCode: 'SERVER_ERROR' },
      { id: 'run1-c8', error: 'anthropic: HTTP 429 rate_limit_error: slow down', errorCode: 'RATE_LIMITED' },
    ]);
    const calls = r.events.filter((e) => e.type === 'agent_call_failed' || e.type === 'agent_call_completed');
    expect(calls.map((e) => [e.type, (e.payload as { call_id: string }).call_id])).toEqual([
      ['agent_call_failed', 'run1-c7'],
      ['agent_call_failed', 'run1-c8'],
      ['agent_call_completed', p1.callId],
    ]);
    expect(calls[1].payload).toMatchObject({ error_code: 'RATE_LIMITED', role: 'proposer', label: 'P1', attempt: 1 });
    expect(d.state.proposals.map((p) => p.label)).toEqual(['P1']);
    expect(d.state.stage).toBe('CRITIQUE');
  });

  it('a retried try is not the schema repair: an invalid reply after retries still gets its one repair', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.invalid('claim: Required', { nope: true }, { retry: 2, priorAttempts: [{ id: 'a', error: 'x', errorCode: 'TIMEOUT' }, { id: 'b', error: 'y', errorCode: 'NETWORK' }] });
    expect(pending(d)).toMatchObject({ role: 'proposer', attempt: 2, label: 'P1', provider: 'anthropic' });
  });
});

describe('build workflow: the partial synthesis after a halt on an unusable provider', () => {
  /** The proposer and the synthesizer both on anthropic; the proposer has no fallback of its own. */
  function proposerOnSynthesizerProvider(synthesizer: Partial<Agents['synthesizer']> = {}): BuildDriver {
    const base = testConfig();
    const agents = { ...base.agents, synthesizer: { ...base.agents.synthesizer, ...synthesizer } } as Agents;
    return new BuildDriver(testConfig({ agents })).begin();
  }
  const onAnthropic = (d: BuildDriver) => d.calls.filter((c) => c.provider === 'anthropic');

  it("AUTH on the synthesizer's provider → the synthesis goes to the synthesizer's fallback, never to the bad key again", () => {
    const d = proposerOnSynthesizerProvider({ fallback: 'openai', fallback_model: 'gpt-5' });
    const r = d.fail('AUTH', 'anthropic: HTTP 401 authentication_error: invalid x-api-key');
    expect(r.state).toMatchObject({ stage: 'SYNTHESIZE', haltReason: 'proposer call failed (AUTH): anthropic: HTTP 401 authentication_error: invalid x-api-key' });
    expect(pending(d)).toMatchObject({ role: 'synthesizer', provider: 'openai', model: 'gpt-5', label: 'S1' });
    expect(onAnthropic(d).map((c) => c.role)).toEqual(['proposer']);
    const reason = "the synthesizer's provider anthropic rejected its API key (AUTH); asking the synthesizer's fallback provider openai/gpt-5 instead";
    expect(r.events).toContainEqual({ type: 'provider_fallback', payload: { role: 'synthesizer', from: 'anthropic', to: 'openai', reason } });
    expect(r.decisions.map((x) => x.reason)).toContain(reason);

    d.reply(synthesisBody('REJECT'));
    expect(d.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(d.state.synthesis).toMatchObject({ partial: true, body: expect.objectContaining({ overall_verdict: 'REJECT' }) });
    expect(onAnthropic(d)).toHaveLength(1);
  });

  it.each([
    ['AUTH', "the synthesizer's provider anthropic rejected its API key (AUTH)"],
    ['NOT_FOUND', "the synthesizer's provider anthropic does not know the model or endpoint (NOT_FOUND)"],
  ])('%s on the synthesizer provider with no fallback → the fact-only report, no second call', (code, why) => {
    const d = proposerOnSynthesizerProvider();
    const r = d.fail(code, `anthropic: HTTP 4xx: ${code}`);
    expect(r.commands).toEqual([]);
    expect(r.state).toMatchObject({ stage: 'DONE', status: 'halted' });
    expect(r.state.synthesis).toMatchObject({ callId: null, partial: true, body: null });
    expect(d.decisions.at(-1)?.reason).toBe(`fact-only report: ${why}`);
    expect(onAnthropic(d)).toHaveLength(1);
  });

  it('AUTH on another provider leaves the synthesizer on its own', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    d.fail('AUTH', 'xai: HTTP 400: Incorrect API key provided: xai-…');
    expect(pending(d)).toMatchObject({ role: 'synthesizer', provider: 'anthropic' });
  });

  it('remembers the bad key for the rest of the run: a role that fell back off it earlier keeps the later close off it too', () => {
    const base = testConfig();
    const agents = { ...base.agents, proposer: { ...base.agents.proposer, fallback: 'openai' } } as Agents;
    const d = new BuildDriver(testConfig({ agents })).begin();
    d.fail('AUTH', 'anthropic: HTTP 401 authentication_error: invalid x-api-key');
    expect(pending(d)).toMatchObject({ role: 'proposer', provider: 'openai' });
    d.reply(proposalBody('P1'));
    expect(d.state.unusableProviders).toEqual({ anthropic: 'AUTH' });
    // the critic (xai) halts the run for a reason of its own; the synthesizer is on anthropic
    const r = d.fail('PROVIDER_ERROR', 'xai: something the provider said');
    expect(r.commands).toEqual([]);
    expect(d.decisions.at(-1)?.reason).toBe("fact-only report: the synthesizer's provider anthropic rejected its API key (AUTH)");
    expect(onAnthropic(d)).toHaveLength(1);
  });

  it("a fallback that is itself unusable in this run is not asked either", () => {
    const base = testConfig();
    const agents = {
      ...base.agents,
      proposer: { ...base.agents.proposer, fallback: 'openai' },
      synthesizer: { provider: 'xai', model: 'grok-4', fallback: 'anthropic' },
    } as Agents;
    const d = new BuildDriver(testConfig({ agents })).begin();
    d.fail('AUTH', 'anthropic: HTTP 401');
    d.reply(proposalBody('P1'));
    const r = d.fail('USAGE_LIMIT', 'xai: HTTP 429 insufficient_quota');
    expect(r.commands).toEqual([]);
    expect(d.decisions.at(-1)?.reason).toBe(
      "fact-only report: the synthesizer's provider xai reported a usage limit, and its fallback provider anthropic rejected its API key (AUTH)",
    );
  });
});
