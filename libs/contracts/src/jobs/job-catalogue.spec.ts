import { agentQueueName, JobName, jobId, jobNamesOf, JOBS, jobSchema, QUEUE, QueueKind, queueKindOf } from './job-catalogue';

const kinds = Object.keys(JOBS) as QueueKind[];
const allNames = kinds.flatMap((k) => jobNamesOf(k));

/** The smallest payload each job accepts; typed so a new job without an entry fails to compile. */
const minimal: { [N in JobName]: Record<string, unknown> } = {
  'run.start': { runId: 'r1' },
  'agent.done': { runId: 'r1', callId: 'c1' },
  'workspace.done': { runId: 'r1', opId: 'o1' },
  'tests.done': { runId: 'r1', opId: 'o1' },
  'run.resume': { runId: 'r1' },
  'run.cancel': { runId: 'r1' },
  'run.appeal': { runId: 'r1', evidence: ['e1'], judges: ['vc'] },
  'run.halt': { runId: 'r1', reason: 'quiet', seenMs: 1 },
  'run.approve': { runId: 'r1', gate: 'criteria', decision: 'approve', note: null, approver: 'alice' },
  'run.answer': { runId: 'r1', questionId: 'Q1', answer: 'yes', answeredBy: 'alice' },
  'workspace.merge': { runId: 'r1', opId: 'o1' },
  'agent.call': { runId: 'r1', callId: 'c1' },
  'playground.call': { runId: 'r1', playgroundId: 'p1' },
  'workspace.prepare': { runId: 'r1', opId: 'o1' },
  'workspace.apply': { runId: 'r1', opId: 'o1', implementationId: 'i1' },
  'workspace.read': { runId: 'r1', opId: 'o1' },
  'workspace.tool': { runId: 'r1', opId: 'o1' },
  'workspace.export': { runId: 'r1', opId: 'o1' },
  'tests.run': { runId: 'r1', opId: 'o1', implementationId: 'i1' },
  'experiment.run': { runId: 'r1', opId: 'o1' },
  'eval.score': { runId: 'r1', cellId: 'c1' },
};

describe('job catalogue', () => {
  it('has a queue kind per fixed queue plus agent', () => {
    expect(kinds.sort()).toEqual(['agent', 'orchestrator', 'tests', 'workspace']);
    expect(Object.values(QUEUE).sort()).toEqual(['orchestrator', 'tests', 'workspace']);
  });

  it('maps every job name to exactly one queue kind', () => {
    expect(new Set(allNames).size).toBe(allNames.length);
    for (const kind of kinds) {
      for (const name of jobNamesOf(kind)) expect(queueKindOf(name)).toBe(kind);
    }
    expect(Object.keys(minimal).sort()).toEqual([...allNames].sort());
  });

  it('throws for a name outside the catalogue', () => {
    expect(() => queueKindOf('run.explode' as JobName)).toThrow('job run.explode is not in the catalogue');
  });

  it.each(allNames)('%s accepts its minimal payload and rejects one without runId', (name) => {
    const schema = jobSchema(name);
    expect(schema.safeParse(minimal[name]).success).toBe(true);
    const { runId: _drop, ...withoutRun } = minimal[name];
    const r = schema.safeParse(withoutRun);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toContain('runId');
    expect(schema.safeParse({ ...minimal[name], runId: '' }).success).toBe(false);
  });

  it('run.resume takes an optional stage and caps, and refuses an unknown stage', () => {
    const schema = jobSchema('run.resume');
    expect(schema.safeParse({ runId: 'r', from: 'CRITIQUE', caps: { max_calls: 20 } }).success).toBe(true);
    expect(schema.safeParse({ runId: 'r', from: 'LUNCH' }).success).toBe(false);
  });

  it('run.appeal needs evidence and judges, and refuses a judge the panel does not have', () => {
    const schema = jobSchema('run.appeal');
    expect(schema.safeParse({ runId: 'r', evidence: ['e'], judges: ['vc', 'pm'] }).success).toBe(true);
    expect(schema.safeParse({ runId: 'r', evidence: [], judges: ['vc'] }).success).toBe(false);
    expect(schema.safeParse({ runId: 'r', evidence: ['e'], judges: [] }).success).toBe(false);
    expect(schema.safeParse({ runId: 'r', evidence: ['e'], judges: ['critic'] }).success).toBe(false);
  });

  it('workspace.apply needs the implementation it applies', () => {
    expect(jobSchema('workspace.apply').safeParse({ runId: 'r', opId: 'o' }).success).toBe(false);
  });
});

describe('agentQueueName', () => {
  it('is agent.<provider>', () => {
    expect(agentQueueName('replay')).toBe('agent.replay');
    expect(agentQueueName('anthropic')).toBe('agent.anthropic');
  });
});

describe('jobId', () => {
  const inputs: (string | number)[][] = [
    [],
    [1],
    [123, 456],
    ['0'],
    ['run:1', 'call:2'],
    [':', '::'],
    ['9f2c1a', 'CRITIQUE', 2],
    ['a__b', 7],
    ['550e8400-e29b-41d4-a716-446655440000', 'agent.call'],
  ];

  it.each(inputs)('never contains ":" and is never all digits: %j', (...parts) => {
    const id = jobId(...parts);
    expect(id).not.toContain(':');
    expect(id).not.toMatch(/^\d+$/);
    expect(id).toMatch(/^j/);
  });

  it('is deterministic and distinguishes different parts', () => {
    expect(jobId('r1', 'c1')).toBe(jobId('r1', 'c1'));
    expect(jobId('r1', 'c1')).not.toBe(jobId('r1', 'c2'));
    expect(jobId('r1', 1)).toBe('j__r1__1');
  });
});
