import { OpsServer } from './ops-server';
import { checkReadiness } from './readiness';
import { RoundtableMetrics } from './roundtable-metrics';

describe('OpsServer', () => {
  let server: OpsServer;
  let redisUp = true;
  const metrics = new RoundtableMetrics('orchestrator', { defaultMetrics: false });

  beforeAll(async () => {
    metrics.setQueueDepthSource(async (set) => set('agent.replay', 'waiting', 3));
    metrics.runOutcomes.inc({ workflow: 'build', status: 'done' });
    server = await OpsServer.start({
      port: 0,
      host: '127.0.0.1',
      metrics,
      readiness: () =>
        checkReadiness({
          postgres: async () => 1,
          redis: async () => {
            if (!redisUp) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
          },
        }),
    });
  });
  afterAll(() => server.close());

  const get = (path: string, method = 'GET') => fetch(`http://127.0.0.1:${server.port}${path}`, { method });

  it('answers /healthz while the process runs', async () => {
    const res = await get('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz 200 with every check, 503 naming the failing dependency', async () => {
    const ok = await get('/readyz');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
    redisUp = false;
    try {
      const down = await get('/readyz');
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({
        error: 'not_ready',
        message: 'not ready: redis: connect ECONNREFUSED 127.0.0.1:6379',
        checks: { postgres: 'ok', redis: 'connect ECONNREFUSED 127.0.0.1:6379' },
      });
    } finally {
      redisUp = true;
    }
  });

  it('serves the metric families in the Prometheus text format, queue depth read at scrape time', async () => {
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('roundtable_queue_jobs{queue="agent.replay",state="waiting",service="orchestrator"} 3');
    expect(text).toContain('roundtable_run_outcomes_total{workflow="build",status="done",service="orchestrator"} 1');
    for (const family of ['roundtable_job_duration_seconds', 'roundtable_agent_calls_total', 'roundtable_budget_halts_total', 'roundtable_sandbox_run_duration_seconds']) {
      expect(text).toContain(`# TYPE ${family} `);
    }
  });

  it('refuses other methods and paths', async () => {
    expect((await get('/metrics', 'POST')).status).toBe(405);
    expect((await get('/v1/runs')).status).toBe(404);
  });

  it('answers /readyz 503 once shutdown has begun, while /healthz stays 200', async () => {
    server.markDraining();
    expect((await get('/readyz')).status).toBe(503);
    expect((await get('/healthz')).status).toBe(200);
  });
});
