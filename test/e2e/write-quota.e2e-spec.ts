import path from 'node:path';
import { createDataSource, createTestDatabase, type TestDatabase } from '@roundtable/persistence';
import { createRedisConnection } from '@roundtable/queues';
import { deleteRedisPrefix, freePort, projectConfigFrom, publishStandInWorker, randomQueuePrefix, type RunningService, startService, stopService, TEST_REDIS_URL } from '@roundtable/testing';

const DEMO = path.join(__dirname, '../../examples/dd-demo/project.yaml');
const TOKEN = 'e2e-quota-token-0123456789abcdef';
const LIMIT = 4;

jest.setTimeout(90_000);

/**
 * Two built api processes on one Redis and one QUEUE_PREFIX, as two replicas behind a load balancer:
 * RATE_LIMIT_WRITES_PER_MIN is one quota for the deployment, not one per process. A count kept in
 * each process would take 2 × LIMIT writes here.
 */
describe('the write quota across api replicas', () => {
  let db: TestDatabase;
  const prefix = randomQueuePrefix('rt_e2e');
  const replicas: { svc: RunningService; base: string }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: true });
    // No provider-worker runs here: a stand-in's registry record lets the api accept the demo (replay).
    await publishStandInWorker(TEST_REDIS_URL, prefix);
    for (let i = 0; i < 2; i++) {
      const port = String(await freePort());
      const svc = await startService('api', {
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: prefix,
        PORT: port,
        HOST: '127.0.0.1',
        API_TOKENS: `ci:${TOKEN}:write`,
        RATE_LIMIT_WRITES_PER_MIN: String(LIMIT),
        LOG_FORMAT: 'text',
      });
      replicas.push({ svc, base: `http://127.0.0.1:${port}` });
    }
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => stopService(r.svc)));
    await db?.drop();
    // The quota's buckets are `<prefix>:write-quota:…`, beside the queues' `<prefix>:…`.
    const redis = createRedisConnection(TEST_REDIS_URL);
    try {
      await deleteRedisPrefix(redis, prefix);
    } finally {
      redis.disconnect();
    }
  });

  const submit = (base: string) =>
    fetch(`${base}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(projectConfigFrom(DEMO)),
    });

  it(`takes ${LIMIT} writes from a token across both replicas, then answers 429 with Retry-After on either`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await submit(replicas[i % 2].base)).status);
    expect(statuses).toEqual(Array(LIMIT).fill(202));

    // Each replica has taken only LIMIT / 2 itself: a per-replica count would let both go on.
    for (const { base } of replicas) {
      const limited = await submit(base);
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await limited.json()).toEqual({ error: 'rate_limited', message: `more than ${LIMIT} writes a minute from token ci; try again in ${retryAfter} s` });
    }

    // Reads are not limited, on either replica.
    for (const { base } of replicas) expect((await fetch(`${base}/v1/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const ds = await createDataSource(db.url, { poolSize: 1 }).initialize();
    try {
      expect(Number((await ds.query(`SELECT COUNT(*) AS n FROM runs`))[0].n)).toBe(LIMIT);
    } finally {
      await ds.destroy();
    }
  });
});
