import path from 'node:path';
import { buildStateBothWays } from './support/build-snapshot';
import { Pipeline, projectConfigFrom, startPipeline, submitRun, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');

describe('the build pipeline across real services (separate processes)', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline({ providerQueues: 'replay' });
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  it('runs the demo to done with ACCEPT, one fix round, and one agent_calls row per LLM request', async () => {
    const res = await submitRun(pipeline.api, projectConfigFrom(DEMO));
    expect(res.status).toBe(202);
    const id = res.body.id as string;

    const run = await waitForTerminal(pipeline, id, 120_000);
    expect(run).toMatchObject({ status: 'done', stage: 'DONE', verdict: 'ACCEPT', fix_round: 1, round: 1, halt_reason: null });

    // One row per LLM request: the cassette holds exactly eight replies and each was requested once.
    const calls = await pipeline.sql(`SELECT role, label, attempt, status, valid FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);
    expect(calls.map((c) => `${c.role}:${c.label}`)).toEqual([
      'proposer:P1',
      'critic:C1',
      'reviser:P2',
      'critic:C2',
      'engineer:I1',
      'engineer:I1f1',
      'validator:R1',
      'synthesizer:S1',
    ]);
    expect(calls.every((c) => c.status === 'completed' && c.valid === true && c.attempt === 1)).toBe(true);

    // The snapshot on the run row (what a step starts from) is what the tables record.
    const both = await buildStateBothWays(pipeline, id);
    expect(both.snapshot.proposals.map((p) => p.label)).toEqual(['P1', 'P2']);
    expect(both.snapshot).toEqual(both.tables);
    expect((run as { usage: { calls: number } }).usage.calls).toBe(8);

    // The tests really ran: the first failed, the fix passed.
    const tests = await pipeline.sql(`SELECT label, exit_code, passed, failed FROM test_runs WHERE run_id = $1 ORDER BY label`, [id]);
    expect(tests).toEqual([
      expect.objectContaining({ label: 'T1', failed: 1 }),
      expect.objectContaining({ label: 'T2', exit_code: 0, failed: 0 }),
    ]);
    expect(tests[0].exit_code).not.toBe(0);

    // The event log is gap-free and ends with the terminal event.
    const events = await pipeline.sql<{ sequence: number; type: string }>(`SELECT sequence, type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.type).toBe('run_completed');

    const report = await (await fetch(`${pipeline.api}/v1/runs/${id}/report`)).text();
    expect(report).toContain('ACCEPT');
    expect(report).toMatch(/fix round/i);
  });
});
