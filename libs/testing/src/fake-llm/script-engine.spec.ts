import { parseFakeScript } from './fake-script';
import { roleOfPrompt, ScriptEngine } from './script-engine';

const engine = (replies: unknown[]) => new ScriptEngine(parseFakeScript({ replies }));

describe('roleOfPrompt', () => {
  it('reads a role: line first, then the preamble', () => {
    expect(roleOfPrompt('You are the critic in a team.\nrole: validator')).toBe('validator');
    expect(roleOfPrompt('You are the critic in a team of specialist agents.')).toBe('critic');
    expect(roleOfPrompt('Just a question')).toBeNull();
  });
});

describe('ScriptEngine', () => {
  it('gives the Nth request of a role that role’s Nth entry, faults included', () => {
    const e = engine([
      { role: 'critic', fault: 429 },
      { role: 'proposer', reply: 'P1' },
      { role: 'critic', reply: 'C1' },
    ]);
    expect(e.next('You are the proposer')).toMatchObject({ role: 'proposer', ordinal: 0, index: 1, error: null });
    expect(e.next('You are the critic')).toMatchObject({ role: 'critic', ordinal: 0, index: 0, entry: { fault: '429' } });
    expect(e.next('You are the critic')).toMatchObject({ role: 'critic', ordinal: 1, index: 2 });
    expect(e.next('You are the critic')).toMatchObject({ index: null, error: 'fake-llm: the script has no reply #3 for role critic (it holds 2)' });
  });

  it('answers `times` requests from one entry', () => {
    const e = engine([{ role: 'critic', fault: 500, times: 3 }, { role: 'critic', reply: 'ok' }]);
    expect([1, 2, 3, 4].map(() => e.next('role: critic').index)).toEqual([0, 0, 0, 1]);
    expect(e.usage()).toEqual([3, 1]);
  });

  it('prefers an entry whose match is in the prompt, and takes file order without a role marker', () => {
    const e = engine([
      { role: '*', reply: 'first' },
      { role: '*', reply: 'special', match: 'MAGIC' },
      { role: '*', reply: 'second' },
    ]);
    expect(e.next('plain').index).toBe(0);
    expect(e.next('has MAGIC in it').index).toBe(1);
    expect(e.next('plain').index).toBe(2);
  });

  it('checks expects / forbids guards on the chosen entry', () => {
    const e = engine([
      { role: 'critic', reply: 'x', forbids: ['claude-sonnet'] },
      { role: 'critic', reply: 'y', expects: ['P1'] },
    ]);
    expect(e.next('You are the critic; written by claude-sonnet-4-5').error).toBe(
      'fake-llm: prompt guard failed for critic reply #1: the prompt contains forbidden "claude-sonnet"',
    );
    expect(e.next('You are the critic').error).toBe('fake-llm: prompt guard failed for critic reply #2: the prompt does not contain expected "P1"');
  });

  it('resumes from saved state (how each fake CLI process continues the script)', () => {
    const e = new ScriptEngine(parseFakeScript({ replies: [{ role: 'critic', reply: 'a' }, { role: 'critic', reply: 'b' }] }), { used: [1, 0], perRole: { critic: 1 } });
    expect(e.next('role: critic')).toMatchObject({ index: 1, ordinal: 1 });
  });
});
