import path from 'node:path';
import { getJson, Pipeline, projectConfigFrom, startPipeline, submitRun, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(60_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const CASSETTE = path.join(REPO, 'test/fixtures/budget-halt/cassette.yaml');

interface CallRow {
  seq: number;
  role: string;
  label: string;
  attempt: number;
  status: string;
  valid: boolean | null;
  error: string | null;
}

describe('budget: max_calls below what the pipeline needs (real services)', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline({ providerQueues: 'replay' });
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  it('halts on max_calls, gives the synthesizer exactly one call over the cap, and the report says why', async () => {
    const config = projectConfigFrom(DEMO, {
      budget: { max_calls: 4 },
      providers: { replay: { type: 'replay', cassette: CASSETTE } },
    });
    const res = await submitRun(pipeline.api, config);
    expect(res.status).toBe(202);
    const id = res.body.id as string;

    const run = await waitForTerminal(pipeline, id);
    expect(run).toMatchObject({ status: 'halted', stage: 'DONE', verdict: 'NEEDS_EXPERIMENT', fix_round: 0 });
    expect(run.halt_reason).toMatch(/^max_calls reached: 4 of 4 calls/);
    expect(run).toMatchObject({ usage: expect.objectContaining({ calls: 5 }), caps: expect.objectContaining({ max_calls: 4 }) });

    // Four calls within the cap, then exactly one synthesizer call: 4 + 1 rows, one per request.
    const calls = await pipeline.sql<CallRow>(`SELECT seq, role, label, attempt, status, valid, error FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);
    expect(calls.map((c) => `${c.role}:${c.label}`)).toEqual(['proposer:P1', 'critic:C1', 'reviser:P2', 'critic:C2', 'synthesizer:S1']);
    expect(calls.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(calls.filter((c) => c.role === 'synthesizer')).toHaveLength(1);
    expect(calls.at(-1)?.role).toBe('synthesizer');
    // The synthesizer's guards (the halt reason and "no tests were run" in its prompt) held.
    expect(calls.every((c) => c.status === 'completed' && c.valid === true && c.attempt === 1 && c.error === null)).toBe(true);
    // The engineer was never asked, and nothing was built or tested.
    const [built] = await pipeline.sql<{ impls: number; tests: number; ops: number }>(
      `SELECT (SELECT count(*)::int FROM implementations WHERE run_id = $1) AS impls,
              (SELECT count(*)::int FROM test_runs WHERE run_id = $1) AS tests,
              (SELECT count(*)::int FROM workspace_ops WHERE run_id = $1 AND kind <> 'prepare') AS ops`,
      [id],
    );
    expect(built).toEqual({ impls: 0, tests: 0, ops: 0 });

    // The decision log records the refusal with the cap it hit; reservations are all released.
    const halts = await pipeline.sql<{ reason: string; refs: string[] }>(`SELECT reason, refs FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED'`, [id]);
    expect(halts).toEqual([{ reason: run.halt_reason, refs: ['max_calls'] }]);
    const [{ reserved }] = await pipeline.sql<{ reserved: number }>(`SELECT count(*)::int AS reserved FROM budget_reservations WHERE run_id = $1`, [id]);
    expect(reserved).toBe(0);

    const events = await pipeline.sql<{ sequence: number; type: string }>(`SELECT sequence, type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'run_halted')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('run_completed');

    const report = await (await fetch(`${pipeline.api}/v1/runs/${id}/report`)).text();
    expect(report).toMatch(/Halt reason: max_calls reached: 4 of 4 calls/);
    expect(report).toContain('NEEDS_EXPERIMENT');
    expect(report).toContain('partial synthesis after a halt');
    expect(report).toContain('No tests were run.');

    const list = await getJson<Array<{ id: string; status: string }>>(pipeline.api, '/v1/runs');
    expect(list.body).toEqual([expect.objectContaining({ id, status: 'halted' })]);
  });
});
