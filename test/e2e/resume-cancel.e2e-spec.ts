import { queuePrefix } from '@roundtable/queues';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import {
  getJson,
  Pipeline,
  postJson,
  projectConfigFrom,
  startPipeline,
  submitRun,
  TEST_REDIS_URL,
  waitFor,
  waitForTerminal,
} from '@roundtable/testing';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');

interface CassetteReply {
  role: string;
  reply: unknown;
  expects?: string[];
  forbids?: string[];
}

/**
 * The demo's cassette, extended for runs that halt and resume: the synthesizer's first reply
 * is the partial synthesis written at the halt (the demo's own synthesis comes second, after
 * the resume), and a third critic reply serves `resume --from CRITIQUE`, which re-runs the
 * critique of P2 instead of reusing C2.
 */
function resumeCassette(dir: string): string {
  const demo = parseYaml(readFileSync(path.join(REPO, 'examples/dd-demo/cassette.yaml'), 'utf8')) as { replies: CassetteReply[] };
  const halted = parseYaml(readFileSync(path.join(REPO, 'test/fixtures/budget-halt/cassette.yaml'), 'utf8')) as { replies: CassetteReply[] };
  const partialSynthesis = halted.replies.find((r) => r.role === 'synthesizer')!;
  const critiques = demo.replies.filter((r) => r.role === 'critic');
  const reCritique = { ...critiques[critiques.length - 1], expects: undefined };
  const replies = [partialSynthesis, ...demo.replies, reCritique];
  const file = path.join(dir, 'resume-cassette.yaml');
  writeFileSync(file, toYaml({ replies }));
  return file;
}

describe('resume and cancel across real services', () => {
  let pipeline: Pipeline;
  let scratch: string;
  let cassette: string;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'rt-resume-'));
    cassette = resumeCassette(scratch);
    pipeline = await startPipeline({ providerQueues: 'replay' });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const haltedRun = async (): Promise<string> => {
    const cfg = projectConfigFrom(DEMO, { budget: { max_calls: 4 } });
    (cfg.providers as Record<string, { cassette: string }>).replay.cassette = cassette;
    const { status, body } = await submitRun(pipeline.api, cfg);
    expect(status).toBe(202);
    const id = body.id as string;
    const run = await waitForTerminal(pipeline, id);
    expect(run).toMatchObject({ status: 'halted' });
    expect(run.halt_reason).toMatch(/^max_calls reached/);
    return id;
  };

  const labels = async (id: string) =>
    (await pipeline.sql<{ label: string }>(`SELECT label FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id])).map((r) => r.label);

  it('a run halted by max_calls resumes with a higher cap and completes without repeating a recorded call', async () => {
    const id = await haltedRun();
    expect(await labels(id)).toEqual(['P1', 'C1', 'P2', 'C2', 'S1']);

    const resumed = await postJson(pipeline.api, `/v1/runs/${id}/resume`, { caps: { max_calls: 20 } });
    expect(resumed.status).toBe(202);
    const run = await waitFor(
      `run ${id} to finish after the resume`,
      async () => {
        const { body } = await getJson(pipeline.api, `/v1/runs/${id}`);
        return body.status === 'done' ? body : undefined;
      },
      90_000,
      150,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${pipeline.logs()}`);
    });

    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT', fix_round: 1, halt_reason: null });
    expect((run.caps as Record<string, number>).max_calls).toBe(20);
    // Nothing recorded before the halt was asked again: the debate's four calls and the partial
    // synthesis stay single, and the pipeline went on from the engineer.
    const after = await labels(id);
    expect(after).toEqual(['P1', 'C1', 'P2', 'C2', 'S1', 'I1', 'I1f1', 'R1', 'S2']);
    expect(new Set(after).size).toBe(after.length);
    expect((run.usage as Record<string, number>).calls).toBe(9);
    const resumedEvents = await pipeline.sql(`SELECT payload FROM run_events WHERE run_id = $1 AND type = 'run_resumed'`, [id]);
    expect(resumedEvents).toHaveLength(1);
    expect(resumedEvents[0].payload).toMatchObject({ at: 'IMPLEMENT', rerun: false });
    // The chain runs on across the halt and the resume (issue 26).
    expect((await getJson(pipeline.api, `/v1/runs/${id}/verify`)).body).toMatchObject({ intact: true, unchained: 0 });
  });

  it('resume --from CRITIQUE re-runs the critique of the current proposal', async () => {
    const id = await haltedRun();
    const resumed = await postJson(pipeline.api, `/v1/runs/${id}/resume`, { from: 'CRITIQUE', caps: { max_calls: 20 } });
    expect(resumed.status).toBe(202);
    // The run is still `halted` until the orchestrator applies the resume: wait for that first.
    await waitFor(
      'the resume to be applied',
      async () => ((await pipeline.sql(`SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'run_resumed'`, [id])).length ? true : undefined),
      30_000,
      100,
    );
    const run = await waitForTerminal(pipeline, id, 90_000);
    expect(run).toMatchObject({ status: 'done', verdict: 'ACCEPT' });
    const calls = await pipeline.sql<{ label: string; role: string }>(`SELECT label, role FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);
    expect(calls.map((c) => c.label)).toEqual(['P1', 'C1', 'P2', 'C2', 'S1', 'C3', 'I1', 'I1f1', 'R1', 'S2']);
    const critiques = await pipeline.sql<{ label: string; target_id: string }>(
      `SELECT label, target_id FROM critiques WHERE run_id = $1 AND target_kind = 'proposal' ORDER BY label`,
      [id],
    );
    expect(critiques.map((c) => `${c.label}->${c.target_id.slice(id.length + 1)}`)).toEqual(['C1->P1', 'C2->P2', 'C3->P2']);
  });

  it('a second resume of a running or finished run is refused', async () => {
    const id = await haltedRun();
    expect((await postJson(pipeline.api, `/v1/runs/${id}/resume`, { caps: { max_calls: 20 } })).status).toBe(202);
    await waitFor(`run ${id} to be done`, async () => ((await getJson(pipeline.api, `/v1/runs/${id}`)).body.status === 'done' ? true : undefined), 90_000, 150);
    expect((await postJson(pipeline.api, `/v1/runs/${id}/resume`, {})).status).toBe(409);
  });

  it('cancel mid-run ends the run cancelled, records the call in flight, and leaves no job in any queue for the run', async () => {
    const cfg = projectConfigFrom(DEMO);
    (cfg.providers as Record<string, Record<string, unknown>>).replay.latency_ms = 1500;
    const { body } = await submitRun(pipeline.api, cfg);
    const id = body.id as string;
    // Wait until a call is in flight at the provider.
    await waitFor(
      'an agent call in flight',
      async () => ((await pipeline.sql(`SELECT 1 FROM agent_calls WHERE run_id = $1 AND status = 'running'`, [id])).length ? true : undefined),
      30_000,
      50,
    );
    expect((await postJson(pipeline.api, `/v1/runs/${id}/cancel`)).status).toBe(202);
    const run = await waitForTerminal(pipeline, id);
    expect(run.status).toBe('cancelled');

    // The call that was in flight finishes and is recorded; nothing is left queued or running.
    await waitFor(
      'no call queued or running',
      async () => ((await pipeline.sql(`SELECT 1 FROM agent_calls WHERE run_id = $1 AND status IN ('queued', 'running')`, [id])).length === 0 ? true : undefined),
      30_000,
      100,
    );
    const calls = await pipeline.sql<{ status: string }>(`SELECT status FROM agent_calls WHERE run_id = $1`, [id]);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((c) => c.status === 'completed').length).toBeGreaterThan(0);

    const redis = new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    try {
      for (const name of ['orchestrator', 'workspace', 'tests', 'agent.replay']) {
        const q = new Queue(name, { connection: redis, prefix: queuePrefix(pipeline.prefix, name) });
        const jobs = await q.getJobs(['waiting', 'delayed', 'prioritized', 'active', 'paused', 'waiting-children']);
        expect({ queue: name, jobs: jobs.filter((j) => j?.data?.runId === id).map((j) => j.name) }).toEqual({ queue: name, jobs: [] });
        await q.close();
      }
    } finally {
      redis.disconnect();
    }
    const events = await pipeline.sql<{ type: string }>(`SELECT type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(events.map((e) => e.type)).toContain('run_cancelled');
    const report = await fetch(`${pipeline.api}/v1/runs/${id}/report`);
    expect(report.status).toBe(200);
    expect(await report.text()).toMatch(/cancelled/i);
  });
});
