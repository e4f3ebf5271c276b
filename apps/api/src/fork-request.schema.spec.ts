import { ForkRequest, overlay } from './fork-request.schema';

describe('overlay', () => {
  it('merges objects key by key and replaces everything else, leaving both inputs as they were', () => {
    const base = { objective: 'o', requirements: ['a', 'b'], budget: { max_calls: 10, max_rounds: 3 }, agents: { critic: { provider: 'x', model: 'm1' } } };
    const edits = { requirements: ['c'], budget: { max_calls: 20 }, agents: { critic: { model: 'm2' } } };
    const before = JSON.stringify([base, edits]);
    expect(overlay(base, edits)).toEqual({ objective: 'o', requirements: ['c'], budget: { max_calls: 20, max_rounds: 3 }, agents: { critic: { provider: 'x', model: 'm2' } } });
    expect(JSON.stringify([base, edits])).toBe(before);
  });

  it('replaces an object with a non-object and the other way round', () => {
    expect(overlay({ a: { b: 1 } }, { a: [1] })).toEqual({ a: [1] });
    expect(overlay({ a: 'text' }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(overlay({ a: { b: 1 } }, { a: null })).toEqual({ a: null });
  });
});

describe('ForkRequest', () => {
  it('takes a stage and optional edits', () => {
    expect(ForkRequest.parse({ from: 'CRITIQUE' })).toEqual({ from: 'CRITIQUE' });
    expect(ForkRequest.parse({ from: 'DEBATE', edits: { idea: { title: 't' } } })).toEqual({ from: 'DEBATE', edits: { idea: { title: 't' } } });
  });

  it('names what is wrong', () => {
    const message = (body: unknown) => ForkRequest.safeParse(body).error?.issues.map((i) => i.message).join('; ');
    expect(message({})).toMatch(/^from must be a stage: INIT, PROPOSE, CRITIQUE/);
    expect(message({ from: 'CRITIQUE', edits: ['x'] })).toContain('edits must be an object');
    expect(message({ from: 'CRITIQUE', edits: { workflow: 'panel' } })).toContain('edits.workflow cannot change');
    expect(message({ from: 'CRITIQUE', at: 1 })).toBe('at is not a field of a fork request (it takes from and edits)');
    expect(message('CRITIQUE')).toContain('the body must be a JSON object');
  });
});
