import type { JudgeRole, PanelProjectConfigInput } from '@roundtable/contracts';
import { JUDGES } from '@roundtable/contracts';
import { moderatorBody, PanelDriver, testPanelConfig, verdictBody } from './panel-scenario.fixture';

/**
 * Issue 13: the panel runs on the same engine as the build, so what the build does with a
 * failed call the panel does too — a judge honours its `fallback` (a recorded decision and a
 * provider_fallback event), earlier tries emit agent_call_failed, and a retried call answers
 * through its last try.
 */

type Judges = PanelProjectConfigInput['judges'];

function withFallback(judge: JudgeRole, extra: Record<string, unknown> = {}, overrides: Partial<PanelProjectConfigInput> = {}): PanelDriver {
  const base = testPanelConfig();
  const judges = { ...base.judges, [judge]: { ...base.judges[judge], fallback: 'anthropic', ...extra } } as Judges;
  const d = new PanelDriver(testPanelConfig({ ...overrides, judges }));
  d.start();
  return d;
}

describe('panel workflow on the engine: parity with the build', () => {
  it('a judge whose provider reports a usage limit goes to its fallback, as a recorded decision and event', () => {
    const d = withFallback('pm');
    const v = d.pending('pm');
    expect(v).toMatchObject({ provider: 'xai', model: 'grok-4' });
    const r = d.fail('pm', 'USAGE_LIMIT', 'xai: HTTP 429 insufficient_quota');

    const again = d.pending('pm');
    expect(again).toMatchObject({ role: 'pm', stage: 'ROAST', label: v.label, provider: 'anthropic', model: 'grok-4', attempt: 1, repairOf: null, schemaName: 'JudgeVerdict' });
    expect(again.callId).not.toBe(v.callId);
    expect(again.messages).toEqual(v.messages);
    const reason = 'pm call on xai/grok-4 failed (USAGE_LIMIT): xai: HTTP 429 insufficient_quota; asking the fallback provider anthropic/grok-4 instead';
    expect(r.decisions).toEqual([{ from: 'ROAST', to: 'ROAST', reason, refs: [v.callId] }]);
    expect(r.events.map((e) => e.type)).toEqual(['agent_call_failed', 'provider_fallback', 'agent_call_queued']);
    expect(r.events[1]).toEqual({ type: 'provider_fallback', payload: { role: 'pm', from: 'xai', to: 'anthropic', reason } });
    expect(r.state.haltReason).toBeNull();

    // The fallback's verdict counts as the pm's, and the panel goes on.
    d.roast();
    expect(d.state.verdicts.find((x) => x.judge === 'pm')?.label).toBe(v.label);
    expect(d.state.stage).toBe('DEBATE');
  });

  it('asks for fallback_model, and a failing fallback halts like any other failure (once per call chain)', () => {
    const d = withFallback('vc', { fallback: 'openai', fallback_model: 'gpt-5' });
    d.fail('vc', 'AUTH', 'anthropic: HTTP 401');
    expect(d.pending('vc')).toMatchObject({ provider: 'openai', model: 'gpt-5' });
    const r = d.fail('vc', 'USAGE_LIMIT', 'openai: quota');
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(r.state.haltReason).toBe('vc verdict call failed (USAGE_LIMIT: openai: quota)');
  });

  it('a re-vote judge falls back too, instead of keeping its baseline', () => {
    const d = withFallback('customer', {}, { max_debate_rounds: 0 });
    d.roast();
    expect(d.state.stage).toBe('REVOTE');
    const r = d.fail('customer', 'SERVER_ERROR', 'ollama: 500', { retry: 3 });
    expect(r.decisions[0].reason).toContain('after 3 retries');
    expect(d.pending('customer')).toMatchObject({ provider: 'anthropic', schemaName: 'Revote' });
    expect(d.state.warnings.map((w) => w.kind)).not.toContain('revote_failed');
  });

  it('without a fallback a judge failure halts as before', () => {
    const d = new PanelDriver(testPanelConfig());
    d.start();
    const r = d.fail('pm', 'USAGE_LIMIT', 'xai: quota');
    expect(r.events.map((e) => e.type)).not.toContain('provider_fallback');
    expect(r.state).toMatchObject({ stage: 'HALTED', haltReason: 'pm verdict call failed (USAGE_LIMIT: xai: quota)' });
  });

  it('the tries the provider-worker retried emit agent_call_failed, and the last try answers the call', () => {
    const d = new PanelDriver(testPanelConfig());
    d.start();
    const v = d.pending('engineer');
    const r = d.replyAfterRetries('engineer', verdictBody('engineer'), [
      { error: 'openai: HTTP 500', errorCode: 'SERVER_ERROR' },
      { error: 'openai: HTTP 503', errorCode: 'SERVER_ERROR' },
    ]);
    expect(r.events.slice(0, 3).map((e) => [e.type, (e.payload as { call_id: string }).call_id])).toEqual([
      ['agent_call_failed', v.callId],
      ['agent_call_failed', `${v.callId}-retry1`],
      ['agent_call_completed', `${v.callId}-retry2`],
    ]);
    expect(r.events[0].payload).toMatchObject({ role: 'engineer', label: v.label, error: 'openai: HTTP 500', error_code: 'SERVER_ERROR' });
    expect(d.state.verdicts.map((x) => x.judge)).toEqual(['engineer']);
    expect(d.state.pending.engineer).toBeUndefined();
  });

  it('a duplicate delivery of a reply already taken changes nothing', () => {
    const d = new PanelDriver(testPanelConfig());
    d.start();
    const vc = d.pending('vc');
    const first = d.reply('vc', verdictBody('vc'));
    const reply = first.events.find((e) => e.type === 'agent_call_completed');
    expect(reply?.payload).toMatchObject({ call_id: vc.callId });
    const again = d.step({
      type: 'agent_call_finished',
      call: { id: vc.callId, role: 'vc', stage: 'ROAST', label: vc.label, attempt: 1, provider: vc.provider, model: vc.model, status: 'completed', valid: true, parsed: verdictBody('vc'), responseText: null, error: null, errorCode: null, schemaName: 'JudgeVerdict', messages: vc.messages },
    });
    expect(again.events).toEqual([]);
    expect(d.state.verdicts.filter((v) => v.judge === 'vc')).toHaveLength(1);
    expect(JUDGES.filter((j) => j !== 'vc').every((j) => d.state.pending[j])).toBe(true);
  });
});

describe("panel workflow: the moderator after a halt on its own provider's AUTH or NOT_FOUND", () => {
  /** vc and the moderator both on anthropic; vc has no fallback of its own. */
  function moderatorWith(moderator: Record<string, unknown> = {}): PanelDriver {
    const base = testPanelConfig();
    const d = new PanelDriver(testPanelConfig({ moderator: { ...base.moderator, ...moderator } as PanelProjectConfigInput['moderator'] }));
    d.start();
    return d;
  }
  const onAnthropic = (d: PanelDriver) => d.calls.filter((c) => c.provider === 'anthropic');

  it("a judge's AUTH halt → once the judges in flight land, the moderation goes to the moderator's fallback", () => {
    const d = moderatorWith({ fallback: 'openai', fallback_model: 'gpt-5' });
    d.fail('vc', 'AUTH', 'anthropic: HTTP 401 authentication_error: invalid x-api-key');
    expect(d.state).toMatchObject({ stage: 'HALTED', haltReason: 'vc verdict call failed (AUTH: anthropic: HTTP 401 authentication_error: invalid x-api-key)' });
    d.roast();
    expect(d.pending('moderator')).toMatchObject({ provider: 'openai', model: 'gpt-5' });
    const reason = "the moderator's provider anthropic rejected its API key (AUTH); asking the moderator's fallback provider openai/gpt-5 instead";
    expect(d.eventsOf('provider_fallback')).toEqual([{ role: 'moderator', from: 'anthropic', to: 'openai', reason }]);
    expect(d.decisions.map((x) => x.reason)).toContain(reason);
    d.reply('moderator', moderatorBody());
    expect(d.eventsOf('run_completed')[0]).toMatchObject({ status: 'halted' });
    expect(onAnthropic(d).map((c) => c.role)).toEqual(['vc']);
  });

  it.each([
    ['AUTH', "the moderator's provider anthropic rejected its API key (AUTH)"],
    ['NOT_FOUND', "the moderator's provider anthropic does not know the model or endpoint (NOT_FOUND)"],
  ])('%s with no moderator fallback → a fact-only close, no second call to the failing provider', (code, why) => {
    const d = moderatorWith();
    d.fail('vc', code, `anthropic: ${code}`);
    d.roast();
    expect(d.calls.some((c) => c.role === 'moderator')).toBe(false);
    expect(d.decisions.at(-1)?.reason).toBe(`fact-only close: ${why}`);
    expect(d.eventsOf('run_completed')[0]).toMatchObject({ status: 'halted', verdict: null });
    expect(onAnthropic(d)).toHaveLength(1);
  });

  it("remembers the bad key for the rest of the run: a judge that fell back off the moderator's provider keeps the close off it too", () => {
    const base = testPanelConfig();
    const judges = { ...base.judges, vc: { ...base.judges.vc, fallback: 'openai' } } as Judges;
    const d = new PanelDriver(testPanelConfig({ judges }));
    d.start();
    d.fail('vc', 'AUTH', 'anthropic: HTTP 401');
    expect(d.pending('vc')).toMatchObject({ provider: 'openai' });
    expect(d.state.unusableProviders).toEqual({ anthropic: 'AUTH' });
    d.fail('pm', 'PROVIDER_ERROR', 'xai: something the provider said');
    d.roast();
    expect(d.calls.some((c) => c.role === 'moderator')).toBe(false);
    expect(d.decisions.at(-1)?.reason).toBe("fact-only close: the moderator's provider anthropic rejected its API key (AUTH)");
    expect(onAnthropic(d)).toHaveLength(1);
  });
});
