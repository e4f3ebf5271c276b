import { EvalRequest, PanelProjectConfig, ProjectConfig, type EvalRequestInput } from '@roundtable/contracts';
import { deriveEvalArms, EvalConfigError, evalConfigView, runProjectFor, voteSamples, type EvalArm } from './eval-configs';

const agent = (provider: string, model: string, extra: Record<string, unknown> = {}) => ({ provider, model, ...extra });

/** A build configuration with a team on two providers. */
const team = (patch: Record<string, unknown> = {}) => ({
  providers: { anthropic: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' }, openai: { type: 'openai_compat', api_key_env: 'OPENAI_API_KEY' } },
  agents: {
    proposer: agent('anthropic', 'claude-sonnet-4-5'),
    critic: agent('openai', 'gpt-5'),
    reviser: agent('anthropic', 'claude-sonnet-4-5'),
    engineer: agent('anthropic', 'claude-sonnet-4-5', { max_tokens: 8000, fallback: 'openai', fallback_model: 'gpt-5' }),
    validator: agent('openai', 'gpt-5'),
    synthesizer: agent('anthropic', 'claude-sonnet-4-5'),
  },
  budget: { max_rounds: 2, max_fix_rounds: 2, max_calls: 60, max_tokens: 999_999, max_cost_usd: 50, per_provider: { openai: { max_calls: 3 } } },
  merge: { into: 'main' },
  approvals: ['criteria', 'merge'],
  autonomy: 3,
  repo: '/srv/repos/elsewhere',
  on_needs_evidence: 'ask',
  experiments: { interpreter: agent('anthropic', 'claude-sonnet-4-5'), critic: agent('openai', 'gpt-5') },
  ...patch,
});

const codingTask = (id: string, starter: string | null = null) => ({
  id,
  difficulty: 'easy' as const,
  objective: `Solve ${id}`,
  requirements: ['it works'],
  test_command: 'python -m pytest -q',
  hidden_command: 'python -m pytest -q .eval_hidden',
  starter,
  hidden: [{ path: 'test_hidden.py', content: 'SECRET_HIDDEN_TEST = 1' }],
});

const buildRequest = (patch: Partial<EvalRequestInput> = {}): EvalRequest =>
  EvalRequest.parse({
    suite: 'coding-basics',
    score: 'hidden_tests',
    configs: [
      { name: 'team', project: team() },
      { name: 'gpt-only', project: team({ agents: Object.fromEntries(Object.keys(team().agents).map((r) => [r, agent('openai', 'gpt-5')])) }) },
    ],
    budget: { max_tokens: 100_000, max_cost_usd: 1, max_seconds: 600 },
    tasks: [codingTask('roman-numerals'), codingTask('lru-cache', '/srv/evals/lru-starter')],
    ...patch,
  } as EvalRequestInput);

const judges = (provider: string, model: string) =>
  Object.fromEntries(['vc', 'engineer', 'pm', 'customer', 'competitor'].map((j) => [j, agent(provider, model, { temperature: 0.7, fallback: 'anthropic' })]));
const panelProject = () => ({
  workflow: 'panel',
  providers: { anthropic: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' }, openai: { type: 'openai_compat', api_key_env: 'OPENAI_API_KEY' } },
  judges: judges('openai', 'gpt-5'),
  moderator: agent('anthropic', 'claude-opus-4-1'),
  budget: { max_calls: 50, max_tokens: 400_000 },
});
const idea = { title: 'A', description: 'B', target_user: 'C', evidence: [] };
const panelRequest = (patch: Partial<EvalRequestInput> = {}): EvalRequest =>
  EvalRequest.parse({
    suite: 'panel-ideas',
    score: 'verdict',
    configs: [{ name: 'mixed', project: panelProject() }],
    budget: { max_tokens: 300_000 },
    tasks: [{ id: 'pet-uber', difficulty: 'medium', idea, reference: 'NO-GO' }],
    ...patch,
  } as EvalRequestInput);

describe('deriveEvalArms', () => {
  it('runs each given configuration as it is, then the baselines of the first', () => {
    const arms = deriveEvalArms(buildRequest());
    expect(arms.map((a) => [a.name, a.kind, a.source, a.samples])).toEqual([
      ['team', 'as_configured', 'team', 1],
      ['gpt-only', 'as_configured', 'gpt-only', 1],
      ['team.solo', 'solo', 'team', 1],
      ['team.one-provider', 'one_provider', 'team', 1],
      ['team.vote', 'vote', 'team', 5],
    ]);
    expect(arms[0].project).toEqual(buildRequest().configs[0].project);
  });

  it('solo: the solo pipeline, every role on the engineer\'s agent, fix rounds left to the budget', () => {
    const solo = deriveEvalArms(buildRequest()).find((a) => a.kind === 'solo')!;
    const engineer = team().agents.engineer;
    expect(solo.project.pipeline).toBe('solo');
    expect(Object.values(solo.project.agents as object)).toEqual(Array(6).fill(engineer));
    expect(solo.project.budget).toMatchObject({ max_fix_rounds: 10, max_rounds: 2 });
    expect(solo.project.experiments).toBeUndefined();
  });

  it('one-provider: the same pipeline, every role on the engineer\'s agent without its fallback, one provider', () => {
    const one = deriveEvalArms(buildRequest()).find((a) => a.kind === 'one_provider')!;
    expect(one.project.pipeline).toBeUndefined();
    expect(Object.values(one.project.agents as object)).toEqual(Array(6).fill(agent('anthropic', 'claude-sonnet-4-5', { max_tokens: 8000 })));
    expect(Object.keys(one.project.providers as object)).toEqual(['anthropic']);
    expect(evalConfigView(one).models).toEqual(['anthropic/claude-sonnet-4-5']);
  });

  it('keeps an optional reviewer in the arms only when the configuration has one', () => {
    const withReviewer = team();
    (withReviewer.agents as Record<string, unknown>).reviewer = agent('openai', 'gpt-5');
    const arms = deriveEvalArms(buildRequest({ configs: [{ name: 'team', project: withReviewer }] }));
    expect(Object.keys(arms.find((a) => a.kind === 'solo')!.project.agents as object)).toContain('reviewer');
    expect(Object.keys(deriveEvalArms(buildRequest()).find((a) => a.kind === 'solo')!.project.agents as object)).not.toContain('reviewer');
  });

  it('vote: N solo runs with no fix round', () => {
    const vote = deriveEvalArms(buildRequest({ vote_samples: 3 })).find((a) => a.kind === 'vote')!;
    expect(vote.samples).toBe(3);
    expect(vote.project.pipeline).toBe('solo');
    expect(vote.project.budget).toMatchObject({ max_fix_rounds: 0 });
  });

  it('without baselines runs only the given configurations', () => {
    expect(deriveEvalArms(buildRequest({ baselines: false })).map((a) => a.name)).toEqual(['team', 'gpt-only']);
  });

  it('a verdict suite derives only one-provider: every judge and the moderator on the moderator\'s model', () => {
    const arms = deriveEvalArms(panelRequest());
    expect(arms.map((a) => [a.name, a.kind])).toEqual([
      ['mixed', 'as_configured'],
      ['mixed.one-provider', 'one_provider'],
    ]);
    const one = arms[1];
    for (const j of Object.values(one.project.judges as Record<string, Record<string, unknown>>)) {
      expect(j).toEqual({ provider: 'anthropic', model: 'claude-opus-4-1', temperature: 0.7 });
    }
    expect(Object.keys(one.project.providers as object)).toEqual(['anthropic']);
    expect(evalConfigView(arms[0]).models).toEqual(['openai/gpt-5', 'anthropic/claude-opus-4-1']);
  });

  describe('says which configuration and field is wrong', () => {
    const caught = (f: () => unknown): EvalConfigError => {
      try {
        f();
      } catch (e) {
        if (e instanceof EvalConfigError) return e;
        throw e;
      }
      throw new Error('expected an EvalConfigError');
    };

    it('the first build configuration has no engineer', () => {
      const { engineer: _e, ...agents } = team().agents;
      const e = caught(() => deriveEvalArms(buildRequest({ configs: [{ name: 'broken', project: team({ agents }) }] })));
      expect(e).toMatchObject({ code: 'EVAL_CONFIG_INVALID', config: 'broken', field: 'agents.engineer' });
      expect(e.message).toMatch(/^configuration "broken", agents\.engineer: /);
      // … which only matters when baselines are derived from it
      expect(() => deriveEvalArms(buildRequest({ baselines: false, configs: [{ name: 'broken', project: team({ agents }) }] }))).not.toThrow();
    });

    it('the engineer\'s provider is not declared', () => {
      const e = caught(() => deriveEvalArms(buildRequest({ configs: [{ name: 'team', project: team({ providers: { openai: { type: 'openai_compat', api_key_env: 'K' } } }) }] })));
      expect(e).toMatchObject({ config: 'team', field: 'agents.engineer.provider' });
    });

    it('the first panel configuration has no moderator', () => {
      const { moderator: _m, ...project } = panelProject();
      expect(caught(() => deriveEvalArms(panelRequest({ configs: [{ name: 'nomod', project }] })))).toMatchObject({ config: 'nomod', field: 'moderator' });
    });

    it('two configurations share a name, or one takes a baseline\'s', () => {
      const twice = caught(() => deriveEvalArms(buildRequest({ configs: [{ name: 'team', project: team() }, { name: 'team', project: team() }] })));
      expect(twice).toMatchObject({ config: 'team', field: 'name' });
      const clash = caught(() => deriveEvalArms(buildRequest({ configs: [{ name: 'team', project: team() }, { name: 'team.solo', project: team() }] })));
      expect(clash).toMatchObject({ config: 'team.solo', field: 'name' });
      expect(clash.message).toContain('solo baseline');
    });

    it('the vote\'s samples cannot share the token cap', () => {
      expect(caught(() => deriveEvalArms(buildRequest({ vote_samples: 9, budget: { max_tokens: 8 } })))).toMatchObject({ config: 'team.vote', field: 'vote_samples' });
    });

    it('a configuration of the other workflow', () => {
      expect(caught(() => deriveEvalArms(buildRequest({ configs: [{ name: 'p', project: panelProject() }] })))).toMatchObject({ config: 'p', field: 'workflow' });
    });
  });
});

describe('voteSamples', () => {
  it('fills the budget with solo answers of twice the engineer\'s max_tokens, from 1 to 5', () => {
    expect(voteSamples({ max_tokens: 100_000 }, 4096)).toBe(5);
    expect(voteSamples({ max_tokens: 30_000 }, 4096)).toBe(3);
    expect(voteSamples({ max_tokens: 5_000 }, 4096)).toBe(1);
    expect(voteSamples({ max_tokens: 5_000 }, 4096, 7)).toBe(7);
  });

  it('uses AgentConfig\'s default max_tokens when the engineer sets none', () => {
    const noMax = team();
    delete (noMax.agents.engineer as Record<string, unknown>).max_tokens;
    const vote = deriveEvalArms(buildRequest({ configs: [{ name: 'team', project: noMax }], budget: { max_tokens: 3 * 2 * 4096 } })).find((a) => a.kind === 'vote')!;
    expect(vote.samples).toBe(3);
  });
});

describe('runProjectFor', () => {
  it('fills a coding task in, never its hidden tests, with no gate, merge or person in the loop', () => {
    const req = buildRequest();
    const [teamArm] = deriveEvalArms(req);
    const p = runProjectFor(teamArm, req.tasks[0], req.budget, req.suite);
    expect(p).toMatchObject({
      workflow: 'build',
      project: 'eval-coding-basics-roman-numerals',
      objective: 'Solve roman-numerals',
      requirements: ['it works'],
      test_command: 'python -m pytest -q',
      approvals: [],
      autonomy: 2,
      on_needs_evidence: 'end',
    });
    expect('merge' in p).toBe(false);
    expect('repo' in p).toBe(false);
    expect(JSON.stringify(p)).not.toContain('SECRET_HIDDEN_TEST');
    expect(JSON.stringify(p)).not.toContain('.eval_hidden');
    expect(runProjectFor(teamArm, req.tasks[1], req.budget, req.suite).repo).toBe('/srv/evals/lru-starter');
  });

  it('the budget: the eval\'s caps, calls raised to 40, no per-provider caps', () => {
    const req = buildRequest({ budget: { max_tokens: 100_000, max_seconds: 300 } });
    const arms = deriveEvalArms(req);
    const teamBudget = runProjectFor(arms[0], req.tasks[0], req.budget, req.suite).budget;
    // no eval cost cap: the file's stays
    expect(teamBudget).toEqual({ max_rounds: 2, max_fix_rounds: 2, max_calls: 60, max_tokens: 100_000, max_cost_usd: 50, max_seconds: 300 });
    const vote = arms.find((a) => a.kind === 'vote')!;
    expect(runProjectFor(vote, req.tasks[0], req.budget, req.suite).budget).toEqual({
      max_rounds: 2,
      max_fix_rounds: 0,
      max_calls: 60,
      max_tokens: 20_000,
      max_cost_usd: 50,
      max_seconds: 300,
    });
    const lean = deriveEvalArms(buildRequest({ configs: [{ name: 'lean', project: team({ budget: { max_calls: 8 } }) }] }));
    expect(runProjectFor(lean[0], req.tasks[0], req.budget, req.suite).budget).toMatchObject({ max_calls: 40 });
  });

  it('gives a panel task its idea', () => {
    const req = panelRequest();
    const [arm] = deriveEvalArms(req);
    const p = runProjectFor(arm, req.tasks[0], req.budget, req.suite);
    expect(p).toMatchObject({ workflow: 'panel', project: 'eval-panel-ideas-pet-uber', idea });
    expect(p.budget).toEqual({ max_calls: 50, max_tokens: 300_000, max_seconds: 900 });
  });

  it('gives runs the project schemas accept', () => {
    const req = buildRequest();
    for (const arm of deriveEvalArms(req)) {
      // `pipeline` is the solo pipeline's field, being added to ProjectConfig alongside this library.
      const { pipeline: _pipeline, ...p } = runProjectFor(arm, req.tasks[1], req.budget, req.suite);
      const parsed = ProjectConfig.safeParse(p);
      expect(parsed.error?.issues ?? []).toEqual([]);
    }
    const preq = panelRequest();
    for (const arm of deriveEvalArms(preq)) {
      const parsed = PanelProjectConfig.safeParse(runProjectFor(arm, preq.tasks[0], preq.budget, preq.suite));
      expect(parsed.error?.issues ?? []).toEqual([]);
    }
  });

  describe('equal budget, by construction: samples × per-run cap ≤ the eval\'s cap, for every arm', () => {
    const budgets = [
      { max_tokens: 100_000, max_cost_usd: 1, max_seconds: 900 },
      { max_tokens: 99_999, max_cost_usd: 0.1, max_seconds: 60 },
      { max_tokens: 9, max_cost_usd: 0.3, max_seconds: 60 },
      { max_tokens: 50_001, max_cost_usd: 0.7, max_seconds: 60 },
      { max_tokens: 123_457, max_cost_usd: 2.9, max_seconds: 60 },
    ];
    const cases: [string, EvalRequest][] = [];
    for (const budget of budgets) {
      for (const n of [undefined, 1, 2, 3, 6, 7, 9]) cases.push([`${JSON.stringify(budget)} vote_samples ${n}`, buildRequest({ budget, vote_samples: n })]);
      cases.push([`panel ${JSON.stringify(budget)}`, panelRequest({ budget })]);
    }

    it.each(cases)('%s', (_name, req) => {
      const arms: EvalArm[] = deriveEvalArms(req);
      for (const arm of arms) {
        for (const task of req.tasks) {
          const b = runProjectFor(arm, task, req.budget, req.suite).budget as Record<string, number>;
          expect(arm.samples * b.max_tokens).toBeLessThanOrEqual(req.budget.max_tokens);
          expect(arm.samples * b.max_cost_usd).toBeLessThanOrEqual(req.budget.max_cost_usd!);
          expect(b.max_cost_usd).toBeGreaterThan(0);
          expect(b.max_seconds).toBe(req.budget.max_seconds);
          expect(b.per_provider).toBeUndefined();
        }
      }
    });
  });
});
