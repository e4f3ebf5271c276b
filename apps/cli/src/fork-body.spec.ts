import { UsageError } from './cli-args';
import { forkBody } from './fork-body';

describe('forkBody', () => {
  it('sends the stage upper-cased, and no edits when none were given', () => {
    expect(forkBody({ from: 'critique' })).toEqual({ from: 'CRITIQUE' });
  });

  it('makes the requirements the whole new list, the objective, and each agent edit', () => {
    expect(
      forkBody({ from: 'REVISE', objective: 'O2', requirement: ['a', ' b '], agent: ['critic=anthropic:claude-sonnet-4-5', 'engineer=:gpt-5'] }),
    ).toEqual({
      from: 'REVISE',
      edits: { objective: 'O2', requirements: ['a', 'b'], agents: { critic: { provider: 'anthropic', model: 'claude-sonnet-4-5' }, engineer: { model: 'gpt-5' } } },
    });
  });

  it('lays the options over the edits file', () => {
    const file = { requirements: ['from the file'], budget: { max_calls: 30 }, agents: { critic: { provider: 'xai', model: 'grok-4' } } };
    expect(forkBody({ from: 'PROPOSE', requirement: 'from the flag', agent: 'critic=:grok-4-fast' }, file)).toEqual({
      from: 'PROPOSE',
      edits: { requirements: ['from the flag'], budget: { max_calls: 30 }, agents: { critic: { provider: 'xai', model: 'grok-4-fast' } } },
    });
  });

  it('says what is missing or malformed', () => {
    expect(() => forkBody({})).toThrow(new UsageError('fork needs --from STAGE: the stage to run again from (every call before it is copied, e.g. CRITIQUE)'));
    expect(() => forkBody({ from: 'X', agent: 'critic' })).toThrow(/--agent takes ROLE=PROVIDER\[:MODEL\]/);
    expect(() => forkBody({ from: 'X', agent: 'critic=' })).toThrow(/got "critic="/);
  });
});
