import { parse as parseYaml } from 'yaml';
import { handoffBody, handoffBuildTemplate, handoffCandidates } from './ideas-handoff';

const BUILD = { name: 'dd-demo', workflow: 'build', text: 'project: dd-demo\nobjective: build dd.py\nrequirements: [a]\nproviders:\n  replay: { type: replay, cassette: c.yaml }\nbudget: { max_calls: 16 }\ntest_command: pytest\n' };
const PANEL = { name: 'panel-demo', workflow: 'panel', text: 'project: p\nworkflow: panel\nidea: { title: t }\nobjective: not a build\n' };
const judges = (w: string) => w === 'panel';

describe('handoffBuildTemplate', () => {
  it("is the build example's settings without what the handoff writes", () => {
    const text = handoffBuildTemplate([PANEL, BUILD] as never, judges);
    expect(parseYaml(text)).toEqual({ providers: { replay: { type: 'replay', cassette: 'c.yaml' } }, budget: { max_calls: 16 }, test_command: 'pytest' });
  });

  it('prefers an example that runs as posted to one with a ${VAR} to expand', () => {
    const withVar = { ...BUILD, name: 'anthropic-only', text: BUILD.text.replace('budget: { max_calls: 16 }', 'budget: { max_calls: 16 }\nagents: { proposer: { provider: replay, model: "${MODEL}" } }') };
    expect(handoffBuildTemplate([PANEL, withVar, BUILD] as never, judges)).not.toContain('${');
    expect(handoffBuildTemplate([withVar] as never, judges)).toContain('${MODEL}');
  });

  it('is empty when no example builds', () => {
    expect(handoffBuildTemplate([PANEL] as never, judges)).toBe('');
  });
});

describe('handoffBody', () => {
  it('takes the panel run and the build settings', () => {
    expect(handoffBody('run_p', 'budget: { max_calls: 3 }')).toEqual({ ok: true, body: { panel_run_id: 'run_p', build: { budget: { max_calls: 3 } } } });
  });

  it('names what is wrong', () => {
    expect(handoffBody('', '- a list')).toEqual({
      ok: false,
      issues: { panel_run_id: 'panel_run_id must name a done panel on this idea (a GO or an ITERATE)', build: 'build must be a YAML mapping: providers, agents, budget, test_command …' },
    });
    const bad = handoffBody('run_p', 'a: [');
    expect(bad.ok).toBe(false);
    expect((bad as { issues: Record<string, string> }).issues.build).toMatch(/^build is not valid YAML: /);
  });
});

describe('handoffCandidates', () => {
  it('keeps the GO and ITERATE panels, in order', () => {
    expect(handoffCandidates([{ run_id: 'a', recommendation: 'NO-GO' }, { run_id: 'b', recommendation: 'ITERATE' }, { run_id: 'c', recommendation: 'GO' }]).map((m) => m.run_id)).toEqual(['b', 'c']);
  });
});
