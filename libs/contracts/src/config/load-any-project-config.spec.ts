import { stringify } from 'yaml';
import { isPanelConfig, loadAnyProjectConfig } from './load-any-project-config';
import { ConfigIssue, loadProjectConfig, ProjectConfigError } from './load-project-config';

const JUDGES = ['vc', 'engineer', 'pm', 'customer', 'competitor'];
const ROLES = ['proposer', 'critic', 'reviser', 'engineer', 'validator', 'synthesizer'];

function panel(): Record<string, unknown> {
  return {
    workflow: 'panel',
    project: 'panel-demo',
    idea: { title: 'Shared grocery lists', description: 'A list app for flatmates', target_user: 'students sharing a flat', evidence: ['12 of 20 flats asked'] },
    judges: Object.fromEntries(JUDGES.map((j) => [j, { provider: 'replay', model: '${PANEL_MODEL:-m1}' }])),
    moderator: { provider: 'replay', model: 'm2' },
    providers: { replay: { type: 'replay', cassette: 'cassette.yaml' } },
    max_debate_rounds: 2,
  };
}

function build(): Record<string, unknown> {
  return {
    project: 'demo',
    objective: 'build a thing',
    providers: { replay: { type: 'replay', cassette: '/abs/cassette.yaml' } },
    agents: Object.fromEntries(ROLES.map((r) => [r, { provider: 'replay', model: 'm' }])),
  };
}

function issuesOf(input: unknown, env: Record<string, string | undefined> = {}, baseDir?: string): ConfigIssue[] {
  try {
    loadAnyProjectConfig(input, { env, baseDir });
  } catch (e) {
    expect(e).toBeInstanceOf(ProjectConfigError);
    return (e as ProjectConfigError).issues;
  }
  throw new Error('expected the config to be refused');
}

describe('loadAnyProjectConfig', () => {
  it('loads a panel file from YAML: env expanded, cassette resolved, defaults applied', () => {
    const cfg = loadAnyProjectConfig(stringify(panel()), { env: { PANEL_MODEL: 'qwen3' }, baseDir: '/proj' });
    expect(isPanelConfig(cfg)).toBe(true);
    if (!isPanelConfig(cfg)) return;
    expect(cfg.judges.pm.model).toBe('qwen3');
    expect(cfg.moderator.model).toBe('m2');
    expect(cfg.providers.replay).toMatchObject({ cassette: '/proj/cassette.yaml' });
    expect(cfg).toMatchObject({ max_debate_rounds: 2, revote: true });
    expect(cfg.idea.evidence).toEqual(['12 of 20 flats asked']);
  });

  it('hands a build file (no workflow, or workflow: build) to loadProjectConfig unchanged', () => {
    const a = loadAnyProjectConfig(build(), { env: {} });
    expect(a).toEqual(loadProjectConfig(build(), { env: {} }));
    expect(a.workflow).toBe('build');
    expect(isPanelConfig(loadAnyProjectConfig({ ...build(), workflow: 'build' }, { env: {} }))).toBe(false);
  });

  it('reports malformed YAML exactly as loadProjectConfig does', () => {
    const text = 'workflow: panel\nproject: [';
    let expected: unknown;
    try {
      loadProjectConfig(text, { env: {} });
    } catch (e) {
      expected = (e as ProjectConfigError).issues;
    }
    expect(expected).toBeDefined();
    expect(issuesOf(text)).toEqual(expected);
  });

  it('names an unknown workflow', () => {
    expect(issuesOf({ ...build(), workflow: 'pannel' })).toEqual([{ path: 'workflow', message: 'unknown workflow "pannel"; use build (the default) or panel' }]);
  });

  it('lists every panel problem at once, by path', () => {
    const raw = panel();
    const judges = { ...(raw.judges as Record<string, unknown>) };
    delete judges.pm;
    judges.vc = { provider: 'nowhere', model: 'm' };
    const issues = issuesOf({ ...raw, judges, idea: { title: 't' }, max_debate_rounds: -1 }, {}, '/proj');
    const paths = issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['judges.pm', 'idea.description', 'idea.target_user', 'max_debate_rounds']));
  });

  it('cross-checks provider names and api keys for judges and the moderator', () => {
    const raw = panel();
    raw.providers = { replay: { type: 'replay', cassette: '/c.yaml' }, claude: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' } };
    raw.moderator = { provider: 'claude', model: 'sonnet' };
    (raw.judges as Record<string, unknown>).competitor = { provider: 'grok', model: 'g' };
    const issues = issuesOf(raw);
    expect(issues.map((i) => i.path).sort()).toEqual(['judges.competitor.provider', 'providers.claude.api_key_env']);
    expect(issues.find((i) => i.path === 'judges.competitor.provider')?.message).toContain('unknown provider "grok"');
  });

  it('never checks a judge\'s key against a service\'s environment (refuse: the keys are the provider-workers\')', () => {
    const raw = panel();
    raw.providers = { replay: { type: 'replay', cassette: '/c.yaml' }, claude: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' } };
    raw.moderator = { provider: 'claude', model: 'sonnet' };
    for (const j of Object.values(raw.judges as Record<string, { model: string }>)) j.model = 'm1';
    const cfg = loadAnyProjectConfig(raw, { env: {}, variables: 'refuse' });
    expect(isPanelConfig(cfg)).toBe(true);
    if (!isPanelConfig(cfg)) return;
    expect(cfg.moderator).toMatchObject({ provider: 'claude', model: 'sonnet' });
    expect(cfg.providers.claude).toMatchObject({ type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' });
    expect(Object.values(cfg.judges).map((j) => `${j.provider}/${j.model}`)).toEqual(Array(JUDGES.length).fill('replay/m1'));
  });

  it('refuses a relative cassette when there is no baseDir (a config posted to the API)', () => {
    expect(issuesOf(panel())).toEqual([expect.objectContaining({ path: 'providers.replay.cassette' })]);
  });

  it('reports an unset variable once, not again as an empty field', () => {
    const raw = panel();
    raw.project = '${NO_SUCH_VAR}';
    const issues = issuesOf(raw, {}, '/proj');
    expect(issues.filter((i) => i.path === 'project')).toHaveLength(1);
    expect(issues[0].message).toContain('NO_SUCH_VAR');
  });
});
