import { queueDisplayName } from './job-card-adapter';
import { jobCardName } from './job-card';

describe('jobCardName', () => {
  it('shows an agent call by run, role, label and stage', () => {
    const job = { name: 'agent.call', data: { runId: 'run_1', callId: 'run_1-c2', card: { role: 'critic', label: 'C1', stage: 'CRITIQUE' } } };
    expect(jobCardName(job)).toBe('agent.call · run run_1 · critic · C1 · CRITIQUE');
  });

  it('falls back to the ids a job carries (a call resent from its row has no card)', () => {
    expect(jobCardName({ name: 'agent.call', data: { runId: 'run_1', callId: 'run_1-c2' } })).toBe('agent.call · run run_1 · call run_1-c2');
    expect(jobCardName({ name: 'agent.done', data: { runId: 'run_1', callId: 'run_1-c2' } })).toBe('agent.done · run run_1 · call run_1-c2');
    expect(jobCardName({ name: 'tests.run', data: { runId: 'run_1', opId: 'op3', implementationId: 'i1' } })).toBe('tests.run · run run_1 · op op3');
    expect(jobCardName({ name: 'run.start', data: { runId: 'run_1' } })).toBe('run.start · run run_1');
  });

  it('does not throw on a job that is not ours', () => {
    expect(jobCardName({})).toBe('(unnamed)');
    expect(jobCardName({ name: 'x', data: 'text' })).toBe('x');
  });
});

describe('queueDisplayName', () => {
  it('says what each queue carries', () => {
    expect(queueDisplayName('orchestrator')).toBe('orchestrator · run steps');
    expect(queueDisplayName('agent.openai')).toBe('agent.openai · calls to openai');
    expect(queueDisplayName('other')).toBe('other');
  });
});
