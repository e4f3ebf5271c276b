import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ideaPanelExampleOf, ideaPanelProjectOf } from './ideas-panel';

const PANEL = {
  name: 'panel-demo',
  workflow: 'panel',
  summary: 'five judges',
  text: [
    '# a comment',
    'workflow: panel',
    'project: panel-demo',
    'idea:',
    '  title: Swapboard',
    '  description: an app',
    'providers:',
    '  replay: { type: replay, cassette: panel-demo/cassette.yaml }',
    'judges:',
    '  vc: { provider: replay, model: m }',
    'moderator: { provider: replay, model: m }',
    'budget: { max_calls: 40 }',
    'revote: true',
  ].join('\n'),
};
const BUILD = { name: 'dd-demo', workflow: 'build', summary: 'a build', text: 'workflow: build\nproject: dd-demo\nobjective: x\n' };
const judges = (w: string) => w === 'panel';

describe('a panel on an idea version, from the shipped panel example (issue 23)', () => {
  it('picks the first example whose workflow judges ideas and whose file has an inline idea', () => {
    expect(ideaPanelExampleOf([BUILD, PANEL], judges)).toBe(PANEL);
    expect(ideaPanelExampleOf([BUILD], judges)).toBeNull();
    // A panel example already by reference (no inline idea) is not one to copy.
    expect(ideaPanelExampleOf([{ ...PANEL, text: 'workflow: panel\nidea_ref: { id: idea_0123456789, version: 1 }\n' }], judges)).toBeNull();
    expect(ideaPanelExampleOf([{ ...PANEL, text: ': : not yaml [' }], judges)).toBeNull();
  });

  it("keeps the example's providers, judges, budget and settings, names the project, and puts idea_ref where idea was", () => {
    expect(ideaPanelProjectOf(PANEL, { id: 'idea_0123456789', version: 2 }, 'swapboard')).toEqual({
      workflow: 'panel',
      project: 'swapboard',
      idea_ref: { id: 'idea_0123456789', version: 2 },
      providers: { replay: { type: 'replay', cassette: 'panel-demo/cassette.yaml' } },
      judges: { vc: { provider: 'replay', model: 'm' } },
      moderator: { provider: 'replay', model: 'm' },
      budget: { max_calls: 40 },
      revote: true,
    });
    expect(() => ideaPanelProjectOf({ ...PANEL, text: '- a list' }, { id: 'idea_1', version: 1 }, 'x')).toThrow('the example panel-demo is not a project file');
  });

  it('from the shipped panel demo: everything but its idea is kept', () => {
    const text = readFileSync(path.resolve(__dirname, '../../../../examples/panel-demo/project.yaml'), 'utf8');
    const demo = { name: 'panel-demo', workflow: 'panel', summary: '', text };
    expect(ideaPanelExampleOf([BUILD, demo], judges)).toBe(demo);
    const project = ideaPanelProjectOf(demo, { id: 'idea_0123456789', version: 2 }, 'swapboard');
    expect(project).not.toHaveProperty('idea');
    expect(project).toMatchObject({ workflow: 'panel', project: 'swapboard', idea_ref: { id: 'idea_0123456789', version: 2 }, revote: true, budget: { max_calls: 40 } });
    expect(Object.keys(project.judges as object)).toEqual(['vc', 'engineer', 'pm', 'customer', 'competitor']);
    expect(project.moderator).toEqual({ provider: 'replay', model: 'claude-sonnet-4-5' });
  });
});
