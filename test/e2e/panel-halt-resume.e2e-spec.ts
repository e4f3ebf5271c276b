import { queuePrefix } from '@roundtable/queues';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UnrecoverableError, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { agentQueueName } from '@roundtable/contracts';
import { getJson, Pipeline, projectConfigFrom, startPipeline, submitRun, TEST_REDIS_URL, waitFor, waitForTerminal } from '@roundtable/testing';

jest.setTimeout(150_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
/** A clean demo panel is 5 verdicts + 15 turns + 5 re-votes + 1 moderator = 26 calls; 8 stop it after the third turn. */
const HALTING_CAPS = { max_calls: 8 };

interface CallRow {
  role: string;
  stage: string;
  label: string;
  status: string;
  attempt: number;
}

async function post(api: string, route: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${api}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * Halting and resume are the engine's, for the panel as for the build, through real services:
 * a panel stopped by its budget mid-debate resumes with raised caps and ends as an undisturbed
 * run does, no recorded call asked again; a panel the reconciler finds running with nothing
 * in flight is halted by a step through the panel's own closing, not by a write of the row.
 */
describe('panel halts and resumes through the engine (real services)', () => {
  let pipeline: Pipeline;
  let tmp: string;
  /** The demo's cassette with the moderator's reply twice: the halt's partial synthesis, then the resumed run's whole one. */
  let cassette: string;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-panel-resume-'));
    const demo = parseYaml(readFileSync(path.join(REPO, 'examples/panel-demo/cassette.yaml'), 'utf8')) as { replies: { role: string }[] };
    const moderator = demo.replies.find((r) => r.role === 'moderator')!;
    cassette = path.join(tmp, 'cassette.yaml');
    writeFileSync(cassette, toYaml({ ...demo, replies: [...demo.replies, moderator] }));
    pipeline = await startPipeline({
      // The reconciler looks often and calls a run quiet after 1.5 s, so its halt is seen in seconds.
      env: { RECONCILE_MS: '300', RECONCILE_RESEND_AFTER_MS: '500', RECONCILE_HALT_AFTER_MS: '1500' },
    });
  });

  afterAll(async () => {
    await pipeline?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  const callsOf = (id: string) => pipeline.sql<CallRow>(`SELECT role, stage, label, status, attempt FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);
  const configWith = (over: Record<string, unknown>) => {
    const cfg = projectConfigFrom(DEMO, over) as { providers: Record<string, { cassette?: string }> };
    cfg.providers.replay.cassette = cassette;
    return cfg;
  };
  /** What the run's last run_completed says of the panel. */
  const completionOf = async (id: string) => {
    const [last] = await pipeline.sql<{ payload: { panel: { recommendation: string; scores: Record<string, number>; partial: boolean } } }>(
      `SELECT payload FROM run_events WHERE run_id = $1 AND type = 'run_completed' ORDER BY sequence DESC LIMIT 1`,
      [id],
    );
    return last.payload.panel;
  };

  it('a panel halted by its budget mid-debate resumes with raised caps and ends like an undisturbed run, no recorded call repeated', async () => {
    const undisturbed = (await submitRun(pipeline.api, configWith({}))).body.id as string;
    expect(await waitForTerminal(pipeline, undisturbed, 60_000)).toMatchObject({ status: 'done' });

    const res = await submitRun(pipeline.api, configWith({ budget: HALTING_CAPS }));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    expect(await waitForTerminal(pipeline, id, 60_000)).toMatchObject({ status: 'halted' });
    const atHalt = await callsOf(id);
    expect(atHalt.filter((c) => c.stage === 'DEBATE').map((c) => c.label)).toEqual(['D1', 'D2', 'D3']);
    expect(atHalt.filter((c) => c.role === 'moderator')).toHaveLength(1);

    const resumed = await post(pipeline.api, `/v1/runs/${id}/resume`, { caps: { max_calls: 60 } });
    expect(resumed.status).toBe(202);
    const end = await waitFor(
      `run ${id} to end after its resume`,
      async () => {
        const { body } = await getJson(pipeline.api, `/v1/runs/${id}`);
        return body.status === 'done' ? body : undefined;
      },
      60_000,
      100,
    );
    expect(end).toMatchObject({ status: 'done' });

    const calls = await callsOf(id);
    const clean = await callsOf(undisturbed);
    // Every label of the undisturbed run was asked once; the only extra call is the halt's partial synthesis.
    const judged = (cs: CallRow[]) => cs.filter((c) => c.role !== 'moderator').map((c) => `${c.stage}:${c.role}:${c.label}`);
    expect(judged(calls)).toEqual(judged(clean));
    expect(calls.filter((c) => c.role === 'moderator').map((c) => c.label)).toEqual(['M1', 'M2']);
    expect(calls.slice(0, atHalt.length)).toEqual(atHalt);
    // It ends as the undisturbed run does.
    const [a, b] = [await completionOf(id), await completionOf(undisturbed)];
    expect(a).toMatchObject({ recommendation: b.recommendation, scores: b.scores, partial: false });
    const events = await pipeline.sql<{ type: string; sequence: number }>(`SELECT type, sequence FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'run_resumed')).toHaveLength(1);
  });

  it('a panel the reconciler finds running with nothing in flight is halted by a step and closed by its workflow', async () => {
    // The vc judge sits on a queue no provider-worker consumes; its job then fails for good, so
    // nothing will ever report that call, and the run goes quiet with the other four verdicts in.
    const cfg = configWith({}) as { providers: Record<string, unknown>; judges: Record<string, { provider: string }> };
    cfg.providers.stalled = { ...(cfg.providers.replay as object) };
    cfg.judges.vc.provider = 'stalled';
    // No worker serves that queue, on purpose: the run is queued all the same.
    const res = await post(pipeline.api, '/v1/runs?queue_unserved=true', cfg);
    expect({ status: res.status, error: res.body.message }).toEqual({ status: 202, error: undefined });
    const id = res.body.id as string;
    const connection = new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const failing = new Worker(agentQueueName('stalled'), async () => Promise.reject(new UnrecoverableError('the worker dropped this job for good')), {
      connection,
      prefix: queuePrefix(pipeline.prefix, agentQueueName('stalled')),
    });
    try {
      expect(await waitForTerminal(pipeline, id, 60_000)).toMatchObject({ status: 'halted' });
    } finally {
      await failing.close();
      connection.disconnect();
    }
    const [run] = await pipeline.sql<{ halt_reason: string; event_seq: number }>(`SELECT halt_reason, event_seq FROM runs WHERE id = $1`, [id]);
    expect(run.halt_reason).toMatch(/^reconciler: nothing in flight and no step for 2 s \(agent\.call job .* failed: the worker dropped this job for good\)/);
    const events = await pipeline.sql<{ type: string; sequence: number; payload: Record<string, unknown> }>(
      `SELECT type, sequence, payload FROM run_events WHERE run_id = $1 ORDER BY sequence`,
      [id],
    );
    // The halt went through the panel's closing: run_halted, then (the vc's call never landing) the fact-only close.
    expect(events.filter((e) => e.type === 'run_halted').map((e) => e.payload.reason)).toEqual([run.halt_reason]);
    expect(events.at(-1)).toMatchObject({ type: 'run_completed', payload: { status: 'halted', panel: { partial: true } } });
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(Number(run.event_seq)).toBe(events.length);
    const decisions = await pipeline.sql<{ from_stage: string; to_stage: string }>(`SELECT from_stage, to_stage FROM decisions WHERE run_id = $1 ORDER BY id`, [id]);
    expect(decisions.map((d) => `${d.from_stage}→${d.to_stage}`)).toEqual(expect.arrayContaining(['ROAST→HALTED', 'HALTED→DONE']));
  });
});
