import { agentJsonSchema, TRADING_CHECKLIST, type Critique, type ProjectConfigInput, type TradingCritique, type Verdict } from '@roundtable/contracts';
import { renderBuildReport } from '../report';
import { BuildDriver, critiqueBody, happyPath, implementationBody, proposalBody, reviewBody, synthesisBody, testConfig, testResult, TEST_TEMPLATES } from './build-scenario.fixture';
import type { AgentCallCommand } from './build-types';

/** `domain: trading` in a build (issue 24, item 5): the rules for the proposer, the checklist on every critique. */

const RULES = TEST_TEMPLATES.trading_rules;

function checklist(over: Partial<Record<keyof TradingCritique, { status: 'checked' | 'not_applicable' | 'problem'; evidence: string }>> = {}): TradingCritique {
  const c = Object.fromEntries(TRADING_CHECKLIST.map(({ key }) => [key, { status: 'checked', evidence: `looked at ${key}` }])) as unknown as TradingCritique;
  c.multiple_testing_deflated_sharpe.n_trials = 4;
  for (const [key, item] of Object.entries(over)) Object.assign(c[key as keyof TradingCritique], item);
  return c;
}

function tradingCritique(proposalLabel: string, verdict: Verdict, over: Partial<Critique> = {}, list: TradingCritique = checklist()) {
  return { ...critiqueBody(proposalLabel, verdict, over), trading_critique: list };
}

function withoutItem(body: { trading_critique: TradingCritique }, key: keyof TradingCritique) {
  const list: Record<string, unknown> = { ...body.trading_critique };
  delete list[key];
  return { ...body, trading_critique: list };
}

function driver(overrides: Partial<ProjectConfigInput> = {}, tree: string[] = []): BuildDriver {
  return new BuildDriver(testConfig({ domain: 'trading', ...overrides })).begin(tree);
}

const pending = (d: BuildDriver): AgentCallCommand => {
  if (!d.pendingCall) throw new Error('expected a pending call');
  return d.pendingCall;
};

const userPrompt = (call: AgentCallCommand): string => call.messages[1].content;

describe('a trading build: the prompts', () => {
  it("the proposer's prompt holds the trading rules", () => {
    const d = driver();
    expect(pending(d).role).toBe('proposer');
    expect(userPrompt(pending(d))).toContain(RULES);
  });

  it("the critic is asked with the trading schema, its prompt holds the rules, the checklist's items and that schema", () => {
    const d = driver();
    d.reply(proposalBody('P1'));
    const call = pending(d);
    expect(call).toMatchObject({ role: 'critic', label: 'C1', schemaName: 'CritiqueWithChecklist' });
    const prompt = userPrompt(call);
    expect(prompt).toContain(RULES);
    expect(prompt).toContain('Fill `trading_critique` with every one of these fifteen items');
    for (const { key } of TRADING_CHECKLIST) expect(prompt).toContain(`- \`${key}\`: `);
    expect(prompt).toContain(JSON.stringify(agentJsonSchema('CritiqueWithChecklist')));
  });

  it("every critique is a trading one: the revision's critique too, and the reviser's prompt holds the rules", () => {
    const d = driver();
    d.reply(proposalBody('P1'));
    d.reply(tradingCritique('P1', 'REVISE'));
    expect(pending(d).role).toBe('reviser');
    expect(userPrompt(pending(d))).toContain(RULES);
    d.reply(proposalBody('P2', { revision_of: 'P1', responses_to_criticism: [{ problem: 'major: division by zero', action: 'fixed', reason: 'clamped' }] }));
    expect(pending(d)).toMatchObject({ role: 'critic', label: 'C2', schemaName: 'CritiqueWithChecklist' });
    expect(userPrompt(pending(d))).toContain(RULES);
  });

  it('a critic that may read files first is held to the checklist form of the request-or-critique', () => {
    const d = driver({ repo: '/repos/backtest' }, ['backtest.py']);
    d.reply(proposalBody('P1'));
    expect(pending(d).schemaName).toBe('CritiqueWithChecklistOrFilesRequested');
  });

  it('the engineer is asked as in any build, with no rules', () => {
    const d = driver();
    d.reply(proposalBody('P1'));
    d.reply(tradingCritique('P1', 'ACCEPT'));
    expect(pending(d)).toMatchObject({ role: 'engineer', schemaName: 'Implementation' });
    expect(userPrompt(pending(d))).not.toContain(RULES);
  });
});

describe('a general build is unchanged', () => {
  it('the critic is asked with Critique, and no prompt holds the trading rules', () => {
    const d = new BuildDriver(testConfig()).begin();
    expect(d.state.config.domain).toBe('general');
    expect(userPrompt(pending(d))).not.toContain(RULES);
    expect(userPrompt(pending(d))).toContain('## domain_rules\n\n## schema');
    d.reply(proposalBody('P1'));
    expect(pending(d)).toMatchObject({ role: 'critic', schemaName: 'Critique' });
    expect(userPrompt(pending(d))).not.toContain(RULES);
    expect(userPrompt(pending(d))).not.toContain('trading_critique');
  });
});

describe('a trading critique missing a checklist item', () => {
  it('fails the schema and gets exactly one repair call naming the item; the repaired critique is accepted and keeps its checklist', () => {
    const d = driver();
    d.reply(proposalBody('P1'));
    const bad = pending(d);
    const r = d.reply(withoutItem(tradingCritique('P1', 'ACCEPT'), 'look_ahead_bias'));
    const agentCalls = r.commands.filter((c): c is AgentCallCommand => c.kind === 'agent_call');
    expect(agentCalls).toHaveLength(1);
    const repair = agentCalls[0];
    expect(repair).toMatchObject({ role: 'critic', label: 'C1', attempt: 2, repairOf: bad.callId, schemaName: 'CritiqueWithChecklist' });
    expect(repair.messages[3].content).toContain('trading_critique.look_ahead_bias: Required — every checklist item is answered');
    expect(r.state.critiques).toEqual([]);
    expect(r.events[0].payload).toMatchObject({ valid: false });

    const list = checklist({ look_ahead_bias: { status: 'problem', evidence: 'the signal uses the close\nit trades at' } });
    const ok = d.reply(tradingCritique('P1', 'REVISE', {}, list));
    expect(ok.state.critiques).toHaveLength(1);
    expect(ok.state.critiques[0]).toMatchObject({ label: 'C1', verdict: 'REVISE' });
    expect(ok.records).toContainEqual({ kind: 'critique', record: expect.objectContaining({ label: 'C1', body: expect.objectContaining({ trading_critique: list }) }) });
    expect(pending(d)).toMatchObject({ role: 'reviser', label: 'P2', attempt: 1 });
  });

  it('a second failure gives up as for any schema failure (no third try)', () => {
    const d = driver();
    d.reply(proposalBody('P1'));
    d.reply(withoutItem(tradingCritique('P1', 'ACCEPT'), 'data_quality'));
    const r = d.reply(withoutItem(tradingCritique('P1', 'ACCEPT'), 'data_quality'));
    expect(r.state.haltReason).toMatch(/^FAILED_SCHEMA: critic reply failed its schema twice: .*trading_critique\.data_quality/);
    expect(pending(d).role).toBe('synthesizer');
  });
});

describe('the build report lists the checklist problems', () => {
  it('for each critique with a checklist: the items marked problem, one line each with its evidence', () => {
    const d = driver();
    d.reply(proposalBody('P1'));
    d.reply(tradingCritique('P1', 'REVISE', {}, checklist({
      look_ahead_bias: { status: 'problem', evidence: 'the signal uses the close\nit trades at' },
      transaction_costs_and_slippage: { status: 'problem', evidence: 'no costs charged' },
      survivorship_bias: { status: 'not_applicable', evidence: 'one instrument' },
    })));
    d.reply(proposalBody('P2', { revision_of: 'P1', responses_to_criticism: [{ problem: 'major: division by zero', action: 'fixed', reason: 'clamped' }] }));
    d.reply(tradingCritique('P2', 'ACCEPT'));
    d.reply(implementationBody('P2'));
    d.applied();
    d.tests(testResult(0));
    d.reply(reviewBody('I1'));
    d.reply(synthesisBody('ACCEPT'));
    const report = renderBuildReport({ state: d.state, decisions: d.decisions, audit: { calls: 7, failedCalls: 0, inputTokens: 1, outputTokens: 1, costUsd: null, seconds: null } });
    const section = report.split('\n\n').find((s) => s.startsWith('## Trading checklist'));
    expect(section).toBe(
      [
        '## Trading checklist',
        'C1 on P1: 2 of 15 items marked problem',
        '- look_ahead_bias: the signal uses the close it trades at',
        '- transaction_costs_and_slippage: no costs charged',
        'C2 on P2: 0 of 15 items marked problem',
      ].join('\n'),
    );
  });

  it('a general build has no such section', () => {
    const d = happyPath();
    expect(renderBuildReport({ state: d.state, decisions: d.decisions, audit: { calls: 1, failedCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: null, seconds: null } })).not.toContain('Trading checklist');
  });
});
