import { parse as parseYaml } from 'yaml';
import { EXPERIMENT_TEMPLATE, experimentCandidates, ideaExperimentBody } from './ideas-experiment';

describe('draft the experiment (ideas-experiment)', () => {
  it('prefills the backtest example without a preregistration, with a proposer a draft needs', () => {
    const t = parseYaml(EXPERIMENT_TEMPLATE) as Record<string, unknown>;
    expect(Object.keys(t).sort()).toEqual(['budget', 'critic', 'domain', 'interpreter', 'proposer', 'providers', 'repo']);
    expect(t.proposer).toEqual({ provider: 'replay_a', model: 'claude-sonnet-4-5' });
  });

  it('builds the body: the file as a mapping with the panel; what the idea gives, or not a mapping, is refused at the file', () => {
    expect(ideaExperimentBody('run_p1', 'repo: /r\ndomain: trading\n')).toEqual({ ok: true, body: { repo: '/r', domain: 'trading', panel_run_id: 'run_p1' } });
    const given = ideaExperimentBody('run_p1', 'repo: /r\npreregistration: {}\ncommit: abc\n');
    expect(given).toEqual({ ok: false, issues: { file: expect.stringContaining('leave out preregistration, commit') } });
    expect(ideaExperimentBody('run_p1', '- a list')).toEqual({ ok: false, issues: { file: expect.stringContaining('must be a YAML mapping') } });
    expect(ideaExperimentBody('run_p1', 'a: [')).toEqual({ ok: false, issues: { file: expect.stringContaining('not valid YAML') } });
    expect(ideaExperimentBody('', 'repo: /r')).toEqual({ ok: false, issues: { panel_run_id: expect.any(String) } });
  });

  it('offers every done panel, an ITERATE first', () => {
    const m = [
      { run_id: 'run_3', recommendation: 'GO' },
      { run_id: 'run_2', recommendation: 'ITERATE' },
      { run_id: 'run_1', recommendation: 'NO-GO' },
    ];
    expect(experimentCandidates(m).map((x) => x.run_id)).toEqual(['run_2', 'run_3', 'run_1']);
  });
});
