import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { parse as parseYaml } from 'yaml';
import { createTestDatabase, runMigrations, TestDatabase } from '@roundtable/persistence';
import { Client } from 'pg';
import {
  deleteRedisPrefix,
  randomQueuePrefix,
  RunningService,
  startService,
  stopService,
  TEST_REDIS_URL,
  waitFor,
} from '@roundtable/testing';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');

/** The demo's project file as a client posts it: paths resolved against the file. */
export function demoConfig(): Record<string, unknown> {
  const cfg = parseYaml(readFileSync(DEMO, 'utf8')) as { providers: Record<string, { type: string; cassette?: string }> };
  for (const p of Object.values(cfg.providers)) {
    if (p.cassette) p.cassette = path.resolve(path.dirname(DEMO), p.cassette);
  }
  return cfg as unknown as Record<string, unknown>;
}

describe('the build pipeline across real services (separate processes)', () => {
  let db: TestDatabase;
  let prefix: string;
  let workspaces: string;
  let services: RunningService[] = [];
  let api: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    await runMigrations(db.url);
    prefix = randomQueuePrefix('rt_e2e');
    workspaces = mkdtempSync(path.join(tmpdir(), 'rt-e2e-ws-'));
    const port = String(20000 + Math.floor(Math.random() * 20000));
    const env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix };
    services = await Promise.all([
      startService('api', { ...env, PORT: port }),
      startService('orchestrator', env),
      startService('provider-worker', { ...env, PROVIDER_QUEUES: 'replay' }),
      startService('test-runner', { ...env, WORKSPACE_ROOT: workspaces }),
    ]);
    api = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await Promise.all(services.map((s) => stopService(s)));
    const redis = new IORedis(TEST_REDIS_URL);
    await deleteRedisPrefix(redis, prefix);
    redis.disconnect();
    await db?.drop();
    rmSync(workspaces, { recursive: true, force: true });
  });

  it('runs the demo to done with ACCEPT, one fix round, and one agent_calls row per LLM request', async () => {
    const res = await fetch(`${api}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(demoConfig()),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };

    const run = await waitFor(
      'the run to reach a terminal status',
      async () => {
        const r = (await (await fetch(`${api}/v1/runs/${id}`)).json()) as Record<string, unknown>;
        return ['done', 'halted', 'needs_input', 'failed', 'cancelled'].includes(r.status as string) ? r : undefined;
      },
      120_000,
      200,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${services.map((s) => `--- ${s.name}\n${s.output().slice(-3000)}`).join('\n')}`);
    });

    expect(run).toMatchObject({ status: 'done', stage: 'DONE', verdict: 'ACCEPT', fix_round: 1, round: 1, halt_reason: null });

    // One row per LLM request: the cassette holds exactly eight replies and each was requested once.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const calls = await pg.query(`SELECT role, label, attempt, status, valid FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [id]);
      expect(calls.rows.map((c) => `${c.role}:${c.label}`)).toEqual([
        'proposer:P1',
        'critic:C1',
        'reviser:P2',
        'critic:C2',
        'engineer:I1',
        'engineer:I1f1',
        'validator:R1',
        'synthesizer:S1',
      ]);
      expect(calls.rows.every((c) => c.status === 'completed' && c.valid === true && c.attempt === 1)).toBe(true);
      expect((run as { usage: { calls: number } }).usage.calls).toBe(8);

      // The tests really ran: the first failed, the fix passed.
      const tests = await pg.query(`SELECT label, exit_code, passed, failed FROM test_runs WHERE run_id = $1 ORDER BY label`, [id]);
      expect(tests.rows).toEqual([
        expect.objectContaining({ label: 'T1', failed: 1 }),
        expect.objectContaining({ label: 'T2', exit_code: 0, failed: 0 }),
      ]);
      expect(tests.rows[0].exit_code).not.toBe(0);

      // The event log is gap-free and ends with the terminal event.
      const events = await pg.query(`SELECT sequence, type FROM run_events WHERE run_id = $1 ORDER BY sequence`, [id]);
      expect(events.rows.map((e) => e.sequence)).toEqual(events.rows.map((_, i) => i + 1));
      expect(events.rows.at(-1)?.type).toBe('run_completed');
    } finally {
      await pg.end();
    }

    const report = await (await fetch(`${api}/v1/runs/${id}/report`)).text();
    expect(report).toContain('ACCEPT');
    expect(report).toMatch(/fix round/i);
  });
});
