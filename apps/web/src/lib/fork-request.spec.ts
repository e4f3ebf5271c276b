import { forkBody, forkStages, offersFork } from './fork-request';

const INPUTS = { objective: 'Build dd.py', requirements: ['Returns 0.0 when empty', 'Pure Python'] };

describe('forkBody', () => {
  it('sends only the stage when nothing was edited', () => {
    expect(forkBody({ from: 'CRITIQUE', objective: 'Build dd.py', requirements: 'Returns 0.0 when empty\nPure Python\n', more: '' }, INPUTS)).toEqual({ ok: true, body: { from: 'CRITIQUE' } });
  });

  it('sends the edited requirements as the whole list, the objective when changed, and the YAML edits', () => {
    expect(forkBody({ from: 'CRITIQUE', objective: 'Build dd.py', requirements: 'Returns 0.0 when empty\n\n Standard library only ', more: 'agents:\n  critic: { model: grok-4-fast }\n' }, INPUTS)).toEqual({
      ok: true,
      body: { from: 'CRITIQUE', edits: { agents: { critic: { model: 'grok-4-fast' } }, requirements: ['Returns 0.0 when empty', 'Standard library only'] } },
    });
    expect(forkBody({ from: 'PROPOSE', objective: ' New aim ', more: '' }, INPUTS)).toEqual({ ok: true, body: { from: 'PROPOSE', edits: { objective: 'New aim' } } });
  });

  it('takes YAML edits alone for a workflow whose inputs are not offered', () => {
    expect(forkBody({ from: 'DEBATE', more: 'idea: { title: Better }' }, null)).toEqual({ ok: true, body: { from: 'DEBATE', edits: { idea: { title: 'Better' } } } });
  });

  it('names each field that is wrong', () => {
    const built = forkBody({ from: '', objective: ' ', requirements: '\n', more: 'a: [' }, INPUTS);
    expect(built.ok).toBe(false);
    const issues = (built as { issues: Record<string, string> }).issues;
    expect(Object.keys(issues).sort()).toEqual(['from', 'more', 'objective', 'requirements']);
    expect(issues.more).toMatch(/^more edits are not valid YAML: /);
    expect(forkBody({ from: 'X', more: '- a list' }, null)).toEqual({ ok: false, issues: { more: 'more edits must be a YAML mapping, e.g. "agents: { critic: { model: grok-4 } }"' } });
  });
});

describe('forkStages and offersFork', () => {
  it('lists the stages with calls in the order first reached', () => {
    expect(forkStages([{ stage: 'PROPOSE' }, { stage: 'CRITIQUE' }, { stage: 'REVISE' }, { stage: 'CRITIQUE' }, { stage: 'IMPLEMENT' }])).toEqual(['PROPOSE', 'CRITIQUE', 'REVISE', 'IMPLEMENT']);
    expect(forkStages([])).toEqual([]);
  });

  it('offers a fork on an ended run only', () => {
    for (const s of ['done', 'halted', 'needs_input', 'cancelled', 'failed']) expect(offersFork(s)).toBe(true);
    for (const s of ['queued', 'running', 'awaiting_approval', 'unknown']) expect(offersFork(s)).toBe(false);
  });
});
