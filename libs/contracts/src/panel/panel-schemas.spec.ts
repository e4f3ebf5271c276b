import { agentJsonSchema, formatZodIssues } from '../agent/agent-schemas';
import { DebateTurn } from './debate-turn.schema';
import { Idea } from './idea.schema';
import { JudgeVerdict } from './judge-verdict.schema';
import { ModeratorSynthesis } from './moderator-synthesis.schema';
import { PanelProjectConfig, PANEL_DEFAULT_MAX_CALLS } from './panel-project-config.schema';
import { JUDGES, PanelRole, PanelStage, RunStage } from './panel-vocabulary.schema';
import { Revote } from './revote.schema';

const verdict = {
  judge: 'engineer',
  score: 5,
  stance: 'mixed',
  top_concerns: ['sync conflicts on two devices'],
  evidence: ['the prototype lost 2 of 50 edits in a conflict test'],
  what_would_change_my_mind: 'a CRDT prototype passing the same test',
  confidence: 0.7,
};

const moderator = {
  overall_recommendation: 'ITERATE',
  confidence: 0.55,
  top_strengths: ['a painful, frequent problem'],
  top_risks: ['a free incumbent'],
  top_problems: ['no distribution channel'],
  biggest_disagreement: 'vc (3) vs customer (8) on willingness to pay',
  recommended_experiment: 'a pre-order page shown to 200 target users',
};

describe('panel vocabulary', () => {
  it('fixes the speaker order vc → engineer → pm → customer → competitor', () => {
    expect(JUDGES).toEqual(['vc', 'engineer', 'pm', 'customer', 'competitor']);
    expect(PanelRole.options).toEqual([...JUDGES, 'moderator']);
  });

  it("RunStage is the build's stages plus the panel's own, INIT/DONE/HALTED shared", () => {
    for (const s of PanelStage.options) expect(RunStage.options).toContain(s);
    expect(RunStage.options).toContain('PROPOSE');
    expect(new Set(RunStage.options).size).toBe(RunStage.options.length);
    expect(RunStage.safeParse('LUNCH').success).toBe(false);
  });
});

describe('Idea', () => {
  it('defaults evidence to an empty list and refuses unknown fields', () => {
    expect(Idea.parse({ title: 't', description: 'd', target_user: 'u' }).evidence).toEqual([]);
    expect(Idea.safeParse({ title: 't', description: 'd', target_user: 'u', pitch: 'x' }).success).toBe(false);
    expect(Idea.safeParse({ title: '', description: 'd', target_user: 'u' }).success).toBe(false);
  });
});

describe('JudgeVerdict', () => {
  it('accepts a well-formed verdict', () => {
    expect(JudgeVerdict.parse(verdict)).toEqual(verdict);
  });

  it.each([
    ['score 0', { score: 0 }],
    ['score 11', { score: 11 }],
    ['a fractional score', { score: 6.5 }],
    ['an unknown judge', { judge: 'investor' }],
    ['an unknown stance', { stance: 'neutral' }],
    ['no concerns', { top_concerns: [] }],
    ['six concerns', { top_concerns: ['a', 'b', 'c', 'd', 'e', 'f'] }],
    ['confidence 1.2', { confidence: 1.2 }],
    ['an empty what_would_change_my_mind', { what_would_change_my_mind: '' }],
  ])('refuses %s', (_name, patch) => {
    expect(JudgeVerdict.safeParse({ ...verdict, ...patch }).success).toBe(false);
  });

  it('accepts the edges: score 1 and 10, one and five concerns', () => {
    expect(JudgeVerdict.safeParse({ ...verdict, score: 1, top_concerns: ['a'] }).success).toBe(true);
    expect(JudgeVerdict.safeParse({ ...verdict, score: 10, top_concerns: ['a', 'b', 'c', 'd', 'e'] }).success).toBe(true);
  });
});

describe('DebateTurn', () => {
  it('takes an optional responds_to and refuses a moderator speaker or round 0', () => {
    expect(DebateTurn.parse({ speaker: 'pm', round: 1, message: 'm' })).toEqual({ speaker: 'pm', round: 1, message: 'm' });
    expect(DebateTurn.safeParse({ speaker: 'pm', round: 2, message: 'm', responds_to: ['D1'] }).success).toBe(true);
    expect(DebateTurn.safeParse({ speaker: 'moderator', round: 1, message: 'm' }).success).toBe(false);
    expect(DebateTurn.safeParse({ speaker: 'pm', round: 0, message: 'm' }).success).toBe(false);
  });
});

describe('Revote', () => {
  const base = { judge: 'vc', score: 6, changed: false, confidence: 0.6 };

  it('an unchanged score needs no reason', () => {
    expect(Revote.safeParse(base).success).toBe(true);
  });

  it('a changed score must give its change_reason', () => {
    const r = Revote.safeParse({ ...base, changed: true });
    expect(r.success).toBe(false);
    expect(formatZodIssues(r.error!)).toBe('change_reason: a changed score must give its change_reason');
    expect(Revote.safeParse({ ...base, changed: true, change_reason: '   ' }).success).toBe(false);
    expect(Revote.safeParse({ ...base, changed: true, change_reason: 'the pilot numbers in D7' }).success).toBe(true);
  });

  it('refuses a score outside 1..10', () => {
    expect(Revote.safeParse({ ...base, score: 0 }).success).toBe(false);
    expect(Revote.safeParse({ ...base, score: 11 }).success).toBe(false);
  });
});

describe('ModeratorSynthesis', () => {
  it('accepts GO / ITERATE / NO-GO and nothing else', () => {
    for (const r of ['GO', 'ITERATE', 'NO-GO']) expect(ModeratorSynthesis.safeParse({ ...moderator, overall_recommendation: r }).success).toBe(true);
    expect(ModeratorSynthesis.safeParse({ ...moderator, overall_recommendation: 'MAYBE' }).success).toBe(false);
  });

  it.each(['top_strengths', 'top_risks', 'top_problems'])('caps %s at three', (field) => {
    expect(ModeratorSynthesis.safeParse({ ...moderator, [field]: ['a', 'b', 'c'] }).success).toBe(true);
    expect(ModeratorSynthesis.safeParse({ ...moderator, [field]: ['a', 'b', 'c', 'd'] }).success).toBe(false);
  });

  it('its JSON schema for the providers keeps the enum and the bounds', () => {
    const props = agentJsonSchema('ModeratorSynthesis').properties as Record<string, Record<string, unknown>>;
    expect(props.overall_recommendation.enum).toEqual(['GO', 'ITERATE', 'NO-GO']);
    expect(props.top_risks.maxItems).toBe(3);
    expect((agentJsonSchema('JudgeVerdict').properties as Record<string, Record<string, unknown>>).score).toMatchObject({ minimum: 1, maximum: 10 });
    expect(agentJsonSchema('Revote').required).not.toContain('change_reason');
  });
});

describe('PanelProjectConfig', () => {
  const agent = { provider: 'replay', model: 'm' };
  const raw = {
    workflow: 'panel',
    project: 'panel-demo',
    idea: { title: 't', description: 'd', target_user: 'u' },
    judges: Object.fromEntries(JUDGES.map((j) => [j, agent])),
    moderator: agent,
    providers: { replay: { type: 'replay', cassette: '/c.yaml' } },
  };

  it('defaults three debate rounds, the re-vote on, and a budget a full panel fits in', () => {
    const cfg = PanelProjectConfig.parse(raw);
    expect(cfg.max_debate_rounds).toBe(3);
    expect(cfg.revote).toBe(true);
    expect(cfg.budget.max_calls).toBe(PANEL_DEFAULT_MAX_CALLS);
    expect(cfg.budget.max_calls).toBeGreaterThanOrEqual(5 + 5 * 3 + 5 + 1);
    expect(PanelProjectConfig.parse({ ...raw, budget: { max_cost_usd: 1 } }).budget.max_calls).toBe(PANEL_DEFAULT_MAX_CALLS);
  });

  it('needs all five judges and the panel workflow', () => {
    const { pm: _pm, ...four } = raw.judges;
    expect(PanelProjectConfig.safeParse({ ...raw, judges: four }).success).toBe(false);
    expect(PanelProjectConfig.safeParse({ ...raw, judges: { ...raw.judges, investor: agent } }).success).toBe(false);
    expect(PanelProjectConfig.safeParse({ ...raw, workflow: 'build' }).success).toBe(false);
    expect(PanelProjectConfig.safeParse({ ...raw, max_debate_rounds: 11 }).success).toBe(false);
    expect(PanelProjectConfig.safeParse({ ...raw, max_debate_rounds: 0 }).success).toBe(true);
  });
});
