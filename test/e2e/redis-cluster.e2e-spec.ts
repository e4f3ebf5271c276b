import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TERMINAL_EVENT_TYPES, type RecordVerdict } from '@roundtable/contracts';
import { createRedisConnection, scanKeys } from '@roundtable/queues';
import {
  getJson,
  openSse,
  Pipeline,
  projectConfigFrom,
  RedisClusterFixture,
  sseEvents,
  startPipeline,
  startRedisCluster,
  submitRun,
  waitFor,
  waitForTerminal,
} from '@roundtable/testing';

jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');

/** A project with every replayed reply held `ms`, so a run lasts long enough to break something in the middle. */
function slowed(file: string, ms: number): Record<string, unknown> {
  const cfg = projectConfigFrom(file) as { providers: Record<string, Record<string, unknown>> };
  cfg.providers.replay.latency_ms = ms;
  return cfg;
}

const isTerminal = (type: string) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);

/**
 * The four services as separate processes on a real Redis Cluster (3 masters, each with a
 * replica) that the test starts on this machine: REDIS_URL=redis+cluster://… is the only change.
 * The demo runs end to end with its events streamed live (pub/sub on the cluster); then the master
 * serving the orchestrator's queue is killed mid-run, a replica takes over, and no run is lost:
 * what Redis had not replicated is re-driven from Postgres, as after Redis forgetting.
 */
describe('a deployment on a Redis Cluster', () => {
  let cluster: RedisClusterFixture;
  let pipeline: Pipeline;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    pipeline = await startPipeline({ env: { REDIS_URL: cluster.url } });
  });

  afterAll(async () => {
    await pipeline?.stop();
    await cluster?.stop();
  });

  /** The run verifies intact and its log is gap-free: sequences 1..event_seq, each once. */
  async function expectWholeRecord(id: string): Promise<void> {
    const verdict = (await getJson<RecordVerdict>(pipeline.api, `/v1/runs/${id}/verify`)).body;
    expect(verdict).toMatchObject({ intact: true, unchained: 0, unrecorded_calls: 0 });
    const seqs = await pipeline.sql<{ sequence: number }>(`SELECT sequence FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
    expect(seqs.map((s) => s.sequence)).toEqual(seqs.map((_, i) => i + 1));
  }

  it('runs the demo to done, its events streamed live over the cluster’s pub/sub and its record intact', async () => {
    const res = await submitRun(pipeline.api, slowed(DEMO, 100));
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    // Opened while the run is young: what follows the log's replay comes through the cluster's pub/sub.
    const sse = await openSse(`${pipeline.api}/v1/runs/${id}/events`);
    try {
      expect(sse.status).toBe(200);
      await sse
        .waitFor((f) => f.data !== undefined && isTerminal((JSON.parse(f.data) as { type: string }).type), 120_000)
        .catch((e: Error) => Promise.reject(new Error(`${e.message}\n${pipeline.logs()}`)));
      const streamed = sseEvents(sse.frames).map((e) => e.sequence);
      expect(streamed).toEqual(streamed.map((_, i) => i + 1));
    } finally {
      sse.close();
    }
    const run = await waitForTerminal(pipeline, id, 60_000);
    expect(run).toMatchObject({ status: 'done', stage: 'DONE', verdict: 'ACCEPT', fix_round: 1 });
    const calls = await pipeline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM agent_calls WHERE run_id = $1 AND status = 'completed'`, [id]);
    expect(calls[0]!.n).toBe(8);
    await expectWholeRecord(id);
  });

  it('loses no run when the master serving the orchestrator queue is killed mid-run', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await submitRun(pipeline.api, slowed(PANEL_DEMO, 60));
      expect(res.status).toBe(202);
      ids.push(res.body.id as string);
    }
    // Mid-run: every run has started calling, none has finished.
    await waitFor(
      'each panel run to have completed a few calls',
      async () => {
        const rows = await pipeline.sql<{ run_id: string; n: number }>(
          `SELECT run_id, count(*)::int AS n FROM agent_calls WHERE run_id = ANY($1) AND status = 'completed' GROUP BY run_id`,
          [ids],
        );
        return rows.length === ids.length && rows.every((r) => r.n >= 2) ? rows : undefined;
      },
      60_000,
      50,
    );
    const master = await cluster.masterOf('{orchestrator}');
    await cluster.killMaster(master.port);
    const promoted = await cluster.waitForFailover(master.port, 30_000);
    expect(promoted.port).not.toBe(master.port);
    const unfinished = await pipeline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1) AND status NOT IN ('done', 'halted', 'failed', 'cancelled')`, [ids]);
    expect(unfinished[0]!.n).toBeGreaterThan(0);

    for (const id of ids) {
      expect(await waitForTerminal(pipeline, id, 180_000)).toMatchObject({ status: 'done', verdict: 'ITERATE' });
      await expectWholeRecord(id);
    }
    // Every run made the calls an undisturbed panel makes, each recorded once: a call re-driven after the failover is the same row, not a second one.
    const perRun = await pipeline.sql<{ run_id: string; calls: number; labels: number }>(
      `SELECT run_id, count(*)::int AS calls, count(DISTINCT (label, attempt))::int AS labels FROM agent_calls WHERE run_id = ANY($1) GROUP BY run_id`,
      [ids],
    );
    expect(new Set(perRun.map((r) => r.calls)).size).toBe(1);
    for (const r of perRun) expect(r.labels).toBe(r.calls);
  });

  it('npm run demo’s probes take the cluster’s URL: PING through it, and the demo’s queues cleared on every master', async () => {
    const probe = (...args: string[]) => promisify(execFile)(process.execPath, [path.join(REPO, 'scripts/infra-probe.mjs'), ...args]).then(() => 0, (e: { code?: number }) => e.code ?? -1);
    expect(await probe('redis', cluster.url)).toBe(0);
    expect(await probe('redis', 'redis+cluster://127.0.0.1:1')).toBe(1);

    const redis = createRedisConnection(cluster.url);
    try {
      // Keys of the prefix in several slots, as a deployment's queues are (each its own).
      for (const tag of ['a', 'b', 'c', 'd', 'e']) await redis.set(`${pipeline.prefix}:{${tag}}:probe`, '1');
      expect((await scanKeys(redis, `${pipeline.prefix}:*`)).length).toBeGreaterThanOrEqual(5);
      expect(await probe('redis-clear-prefix', cluster.url, pipeline.prefix)).toBe(0);
      expect(await scanKeys(redis, `${pipeline.prefix}:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
