import { stringify } from 'yaml';
import { loadAnyProjectConfig } from '../config/load-any-project-config';
import { type ConfigIssue, ProjectConfigError } from '../config/load-project-config';
import { loadExperimentConfig } from './load-experiment-config';

function experiment(): Record<string, unknown> {
  return {
    workflow: 'experiment',
    project: 'backtest',
    repo: '/srv/repos/strategy',
    preregistration: {
      title: 'Momentum out of sample',
      hypothesis: 'The 12-1 momentum signal keeps a Sharpe above 0.5 out of sample',
      expected_result: 'sharpe_oos >= 0.5 with max drawdown under 25%',
      method: { description: 'walk-forward backtest 2015-2024', command: 'python backtest.py --oos', metrics: ['sharpe_oos', 'max_dd'] },
      success_criteria: [{ expr: 'sharpe_oos >= 0.5' }],
      failure_criteria: [{ expr: 'max_dd > 0.25' }],
      data: 'daily closes, 2010-2024, vendor X',
    },
    interpreter: { provider: 'replay', model: '${INTERP_MODEL:-m1}' },
    critic: { provider: 'other', model: 'm2' },
    providers: { replay: { type: 'replay', cassette: 'cassette.yaml' }, other: { type: 'replay', cassette: '/abs/other.yaml' } },
  };
}

function issuesOf(run: () => unknown): ConfigIssue[] {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ProjectConfigError);
    return (e as ProjectConfigError).issues;
  }
  throw new Error('expected the file to be refused');
}

describe('loadExperimentConfig', () => {
  it('loads an experiment file from YAML: variables expanded, cassettes resolved, the small default budget applied', () => {
    const cfg = loadExperimentConfig(stringify(experiment()), { env: {}, baseDir: '/home/me/exp' });
    expect(cfg.interpreter.model).toBe('m1');
    expect(cfg.providers.replay).toMatchObject({ type: 'replay', cassette: '/home/me/exp/cassette.yaml' });
    expect(cfg.budget).toMatchObject({ max_calls: 10, max_tokens: 200_000 });
    expect(cfg.preregistration?.domain).toBe('general');
  });

  it('resolves a relative repo against the project file and refuses one posted without a base', () => {
    expect(loadExperimentConfig({ ...experiment(), repo: 'repo' }, { env: {}, baseDir: '/home/me/exp' }).repo).toBe('/home/me/exp/repo');
    const issues = issuesOf(() => loadExperimentConfig({ ...experiment(), repo: 'repo', interpreter: { provider: 'replay', model: 'm' } }, { env: {}, variables: 'refuse', resolveCassette: (p) => `/roots/${p}` }));
    expect(issues).toEqual([expect.objectContaining({ path: 'repo', message: expect.stringContaining('relative') })]);
  });

  it('refuses ${VAR} when variables are refused (a service), naming the field', () => {
    const issues = issuesOf(() => loadExperimentConfig(experiment(), { env: { INTERP_MODEL: 'x' }, variables: 'refuse', resolveCassette: (p) => `/roots/${p}` }));
    expect(issues.map((i) => i.path)).toEqual(['interpreter.model']);
  });

  it('reports every issue at once: undeclared providers, the critic on the interpreter provider, an unknown metric', () => {
    const cfg = experiment();
    cfg.critic = { provider: 'replay', model: 'm', fallback: 'ghost' };
    (cfg.preregistration as { success_criteria: unknown }).success_criteria = [{ expr: 'sharpe_is >= 0.5' }];
    const schemaIssues = issuesOf(() => loadExperimentConfig(cfg, { env: {}, baseDir: '/x' }));
    expect(schemaIssues.map((i) => i.path).sort()).toEqual(['critic.provider', 'preregistration.success_criteria.0.expr']);

    const undeclared = issuesOf(() => loadExperimentConfig({ ...experiment(), critic: { provider: 'ghost', model: 'm', fallback: 'nobody' } }, { env: {}, baseDir: '/x' }));
    expect(undeclared.map((i) => i.path)).toEqual(['critic.provider', 'critic.fallback']);
  });

  it('wants a proposer for a drafted experiment, and one of preregistration or draft_from', () => {
    const { preregistration: _p, ...rest } = experiment();
    expect(issuesOf(() => loadExperimentConfig(rest, { env: {}, baseDir: '/x' })).map((i) => i.path)).toEqual(['preregistration']);
    expect(issuesOf(() => loadExperimentConfig({ ...rest, draft_from: 'does momentum survive costs?' }, { env: {}, baseDir: '/x' })).map((i) => i.path)).toEqual(['proposer']);
    const drafted = loadExperimentConfig({ ...rest, draft_from: 'does momentum survive costs?', proposer: { provider: 'replay', model: 'm' } }, { env: {}, baseDir: '/x' });
    expect(drafted.preregistration).toBeUndefined();
  });

  it('names malformed YAML and a non-mapping', () => {
    expect(issuesOf(() => loadExperimentConfig('a: [1', { env: {} }))[0].message).toMatch(/malformed YAML/);
    expect(issuesOf(() => loadExperimentConfig('- 1', { env: {} }))[0].message).toMatch(/experiment file is a YAML or JSON mapping/);
  });
});

describe('loadAnyProjectConfig and an experiment', () => {
  it('refuses workflow: experiment as a run, pointing at POST /v1/experiments', () => {
    expect(issuesOf(() => loadAnyProjectConfig(experiment(), { env: {} }))).toEqual([
      { path: 'workflow', message: 'an experiment is preregistered with POST /v1/experiments (roundtable experiment preregister FILE), not submitted as a run' },
    ]);
  });
});
