import type { ProjectConfigInput } from '@roundtable/contracts';
import { BuildDriver, critiqueBody, implementationBody, proposalBody, testConfig, testResult } from '../build/build-scenario.fixture';
import type { AgentCallCommand, FinishedCall } from '../build/build-types';
import { PanelDriver, panelHappyPath, testPanelConfig, verdictBody } from '../panel/panel-scenario.fixture';

/**
 * Replies, through the workflows: the facts every reply reports, the one repair (with the bad
 * reply and the error), the stale-reply guard, and the ledger counting only agent calls.
 */

type Agents = ProjectConfigInput['agents'];

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

/** The finished call the provider-worker would report for an earlier command (valid unless patched). */
function finishedFor(call: AgentCallCommand, patch: Partial<FinishedCall> = {}): FinishedCall {
  return {
    id: call.callId,
    role: call.role,
    stage: call.stage,
    label: call.label,
    attempt: call.attempt,
    provider: call.provider,
    model: call.model,
    status: 'completed',
    valid: true,
    parsed: null,
    responseText: null,
    error: null,
    errorCode: null,
    schemaName: call.schemaName,
    messages: call.messages,
    ...patch,
  };
}

describe('engine: the facts of a reply', () => {
  it('agent_call_completed carries the call, valid, and the usage the provider reported', () => {
    const d = new PanelDriver(testPanelConfig());
    d.start();
    const vc = d.pending('vc');
    const r = d.reply('vc', verdictBody('vc'));
    const completed = r.events.find((e) => e.type === 'agent_call_completed');
    expect(completed?.payload).toEqual({
      call_id: vc.callId,
      stage: 'ROAST',
      role: 'vc',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      attempt: 1,
      label: vc.label,
      valid: true,
      input_tokens: vc.estimatedTokens,
      output_tokens: 50,
      cost_usd: 0.01,
      latency_ms: 900,
      gist: expect.any(String),
    });
  });

  it('usage the provider did not report is null, not zero', () => {
    const d = new BuildDriver(testConfig()).begin();
    const r = d.reply(proposalBody('P1'));
    expect(r.events.find((e) => e.type === 'agent_call_completed')?.payload).toMatchObject({
      valid: true,
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      latency_ms: null,
    });
  });

  it('an invalid reply completes with valid false and its error, cut to 200 characters, as the gist', () => {
    const d = new BuildDriver(testConfig()).begin();
    const error = `claim: Required; ${'x'.repeat(300)}`;
    const r = d.invalid(error);
    expect(r.events.find((e) => e.type === 'agent_call_completed')?.payload).toMatchObject({ valid: false, gist: error.slice(0, 200) });
  });

  it('a failed call without an error text says so; a failure with no code gives up as ERROR', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.reply(proposalBody('P1'));
    const c1 = pending(d);
    const r = d.fail('PROVIDER_ERROR', 'ignored', { error: null, errorCode: null });
    expect(r.events.find((e) => e.type === 'agent_call_failed')?.payload).toMatchObject({
      call_id: c1.callId,
      error: '(no error text was recorded)',
      error_code: null,
    });
    expect(r.state.haltReason).toBe('critic call failed (ERROR): (no error text was recorded)');
  });

  it('an earlier try without an error text says so too', () => {
    const d = new BuildDriver(testConfig()).begin();
    const r = d.replyAfterRetries(proposalBody('P1'), [{ id: 'run1-c9', error: null, errorCode: 'TIMEOUT' }]);
    expect(r.events.find((e) => e.type === 'agent_call_failed')?.payload).toMatchObject({ call_id: 'run1-c9', error: '(no error text was recorded)', error_code: 'TIMEOUT' });
  });
});

describe('engine: the one repair', () => {
  const REPAIR_ASK = (error: string) => `Your reply did not match the schema: ${error}. Reply again with one JSON object that matches the schema.`;

  it('asks again with the same conversation, the bad reply as the assistant turn, and the validation error', () => {
    const d = new BuildDriver(testConfig()).begin();
    const p1 = pending(d);
    d.invalid('claim: Required', { nope: true }, { responseText: 'not quite {"nope": true}' });
    const repair = pending(d);
    expect(repair).toMatchObject({ role: 'proposer', label: 'P1', attempt: 2, repairOf: p1.callId, contextRefs: [p1.callId], provider: 'anthropic' });
    expect(repair.messages).toEqual([...p1.messages, { role: 'assistant', content: 'not quite {"nope": true}' }, { role: 'user', content: REPAIR_ASK('claim: Required') }]);
  });

  it('with no response text the bad reply is its parsed JSON; with neither, an empty turn', () => {
    const a = new BuildDriver(testConfig()).begin();
    a.invalid('claim: Required', { nope: 1 }, { responseText: null });
    expect(pending(a).messages.at(-2)).toEqual({ role: 'assistant', content: '{"nope":1}' });

    const b = new BuildDriver(testConfig()).begin();
    b.invalid('claim: Required', undefined, { responseText: null, parsed: undefined });
    expect(pending(b).messages.at(-2)).toEqual({ role: 'assistant', content: '' });
  });

  it('a reply the worker called valid but that fails its schema here is repaired as a schema failure', () => {
    const d = new BuildDriver(testConfig()).begin();
    const r = d.reply({ claim: 'no proposal_id and nothing else' });
    expect(r.events.find((e) => e.type === 'agent_call_completed')?.payload).toMatchObject({ valid: false });
    expect(pending(d)).toMatchObject({ role: 'proposer', attempt: 2, label: 'P1' });
    expect(pending(d).messages.at(-1)?.content).toMatch(/^Your reply did not match the schema: /);
  });

  it('an invalid verdict with no error code is a schema failure: it gets its repair', () => {
    const d = new BuildDriver(testConfig()).begin();
    d.invalid('claim: Required', { nope: true }, { errorCode: null });
    expect(pending(d)).toMatchObject({ role: 'proposer', attempt: 2 });
  });

  it('a schema failure twice never goes to the fallback: the run halts', () => {
    const base = testConfig();
    const agents = { ...base.agents, critic: { ...base.agents.critic, fallback: 'anthropic' } } as Agents;
    const d = new BuildDriver(testConfig({ agents })).begin();
    d.reply(proposalBody('P1'));
    d.invalid('verdict: Invalid option');
    const r = d.invalid('verdict: Invalid option');
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(r.state.haltReason).toBe('FAILED_SCHEMA: critic reply failed its schema twice: verdict: Invalid option');
  });

  it("a repair's retry that comes back invalid is a schema failure twice: no fallback, the run halts", () => {
    const base = testConfig();
    const agents = { ...base.agents, critic: { ...base.agents.critic, fallback: 'anthropic' } } as Agents;
    const d = new BuildDriver(testConfig({ agents })).begin();
    d.reply(proposalBody('P1'));
    d.invalid('verdict: Invalid option');
    d.fail('SERVER_ERROR', 'xai: HTTP 500', { retryable: true });
    expect(pending(d)).toMatchObject({ attempt: 2, retry: 1, provider: 'xai' });
    const r = d.invalid('verdict: Invalid option', { nope: true }, { retry: 1 });
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(r.state.haltReason).toBe('FAILED_SCHEMA: critic reply failed its schema twice: verdict: Invalid option');
  });

  it.each(['RATE_LIMITED', 'SERVER_ERROR', 'NETWORK', 'TIMEOUT'])('%s the provider-worker will not retry → the fallback at once, not a halt', (code) => {
    const base = testConfig();
    const agents = { ...base.agents, critic: { ...base.agents.critic, fallback: 'anthropic' } } as Agents;
    const d = new BuildDriver(testConfig({ agents })).begin();
    d.reply(proposalBody('P1'));
    const r = d.fail(code, `xai: ${code}`, { retryable: false });
    expect(r.decisions[0].reason).toBe(`critic call on xai/grok-4 failed (${code}): xai: ${code}; asking the fallback provider anthropic/grok-4 instead`);
    expect(pending(d)).toMatchObject({ role: 'critic', provider: 'anthropic', label: 'C1' });
  });

  it('a fallback equal to the role provider is never asked', () => {
    const base = testConfig();
    const agents = { ...base.agents, critic: { ...base.agents.critic, fallback: 'xai' } } as Agents;
    const d = new BuildDriver(testConfig({ agents })).begin();
    d.reply(proposalBody('P1'));
    const r = d.fail('USAGE_LIMIT', 'xai: usage limit');
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(r.state.haltReason).toBe('critic call failed (USAGE_LIMIT): xai: usage limit');
  });

  it('retries exhausted with no error code → the fallback, as ERROR after 1 retry', () => {
    const base = testConfig();
    const agents = { ...base.agents, critic: { ...base.agents.critic, fallback: 'anthropic' } } as Agents;
    const d = new BuildDriver(testConfig({ agents })).begin();
    d.reply(proposalBody('P1'));
    const r = d.fail('X', 'xai: odd', { errorCode: null, retry: 1 });
    expect(r.decisions[0].reason).toBe('critic call on xai/grok-4 failed (ERROR) after 1 retry: xai: odd; asking the fallback provider anthropic/grok-4 instead');
  });
});

describe('engine: only a failed call says its provider cannot answer', () => {
  it('a completed reply carrying an AUTH code does not block its provider for the close', () => {
    const d = new BuildDriver(testConfig()).begin();
    const r = d.invalid('odd reply', { nope: true }, { errorCode: 'AUTH' });
    expect(r.state.haltReason).toBe('proposer call failed (AUTH): odd reply');
    expect(r.state.unusableProviders).toBeUndefined();
    expect(pending(d)).toMatchObject({ role: 'synthesizer', provider: 'anthropic' });
  });
});

describe("engine: a workflow's own failure handling comes first", () => {
  it("a failed appeal re-score costs only that re-score: the done panel is not halted", () => {
    const d = panelHappyPath();
    d.appeal(['new evidence'], ['vc']);
    const r = d.fail('vc', 'PROVIDER_ERROR', 'anthropic: bad body');
    expect(r.events.map((e) => e.type)).not.toContain('run_halted');
    expect(r.events).toContainEqual({ type: 'panel_warning', payload: expect.objectContaining({ kind: 'appeal_failed', judges: ['vc'] }) });
    expect(r.state.status).toBe('done');
    expect(r.state.haltReason).toBeNull();
  });
});

describe('engine: stale replies change nothing', () => {
  it('a late delivery of the call a repair replaced is not the awaited reply, even when valid', () => {
    const d = new BuildDriver(testConfig()).begin();
    const p1 = pending(d);
    d.invalid('claim: Required');
    const repair = pending(d);
    const r = d.step({ type: 'agent_call_finished', call: finishedFor(p1, { parsed: proposalBody('P1'), responseText: 'x' }) });
    expect(r.events).toEqual([]);
    expect(r.decisions).toEqual([]);
    expect(r.state.proposals).toEqual([]);
    expect(d.pendingCall).toBe(repair);
  });

  it('a late delivery that lists earlier tries answers only through those tries, not through any', () => {
    const d = new BuildDriver(testConfig()).begin();
    const p1 = pending(d);
    d.invalid('claim: Required');
    const stale = finishedFor(p1, { parsed: proposalBody('P1'), retry: 1, priorAttempts: [{ id: 'run1-c0', error: 'x', errorCode: 'TIMEOUT' }] });
    const r = d.step({ type: 'agent_call_finished', call: stale });
    expect(r.events).toEqual([]);
    expect(r.state.proposals).toEqual([]);
  });

  it("in the panel, a reply under another id than the role's pending call changes nothing", () => {
    const d = new PanelDriver(testPanelConfig());
    d.start();
    const vc = d.pending('vc');
    const r = d.step({
      type: 'agent_call_finished',
      call: {
        id: 'run1-c99',
        role: 'vc',
        stage: vc.stage,
        label: vc.label,
        attempt: 1,
        provider: vc.provider,
        model: vc.model,
        status: 'completed',
        valid: true,
        parsed: verdictBody('vc'),
        responseText: null,
        error: null,
        errorCode: null,
        schemaName: vc.schemaName,
        messages: vc.messages,
      },
    });
    expect(r.events).toEqual([]);
    expect(r.state.pending.vc?.callId).toBe(vc.callId);
  });
});

describe('engine: the ledger counts agent calls only', () => {
  it("a retry's step warns when its reservation crosses 80 %", () => {
    // max_calls 5: P1, C1 and C1's first retry are 60 %; its second retry makes 80 %.
    const d = new BuildDriver(testConfig({ budget: { max_calls: 5 } })).begin();
    d.reply(proposalBody('P1'));
    const first = d.fail('SERVER_ERROR', 'xai: HTTP 500', { retryable: true });
    expect(first.events.map((e) => e.type)).toEqual(['agent_call_failed', 'agent_call_queued']);
    const r = d.fail('SERVER_ERROR', 'xai: HTTP 500', { retryable: true, retry: 1 });
    expect(r.events.map((e) => e.type)).toEqual(['agent_call_failed', 'agent_call_queued', 'budget_warning']);
    expect(r.events.at(-1)?.payload).toMatchObject({ cap: 'max_calls', used: 4, limit: 5 });
  });

  it('a step that only writes files or runs tests reserves no call: the 80 % warning comes with the call that crosses it', () => {
    // max_calls 5: P1, C1 and I1 are 60 %; the validator's R1 makes 80 %.
    const d = new BuildDriver(testConfig({ budget: { max_calls: 5 } })).begin();
    d.reply(proposalBody('P1'));
    d.reply(critiqueBody('P1', 'ACCEPT'));
    const implemented = d.reply(implementationBody('P1'));
    expect(implemented.commands.map((c) => c.kind)).toEqual(['workspace.apply']);
    const applied = d.applied();
    expect(applied.commands.map((c) => c.kind)).toEqual(['tests.run']);
    const warned = d.tests(testResult(0));
    expect(d.eventsOf('budget_warning')).toHaveLength(1);
    expect(warned.events.find((e) => e.type === 'budget_warning')?.payload).toMatchObject({ cap: 'max_calls', used: 4, limit: 5 });
    expect(pending(d)).toMatchObject({ role: 'validator' });
  });
});
