import { OperatorPolicy, readOperatorPolicy, UsageReport } from '@roundtable/contracts';
import { ApiHarness, startApi } from './api-test-harness';

jest.setTimeout(30_000);

const ALPHA = 'usage-alpha-token-0123456789abcdef';
const BETA = 'usage-beta-token-0123456789abcdefg';

/** GET /v1/usage (issue 26): spending by team and project since a time, caps beside, a token's own team only. */
describe('GET /v1/usage', () => {
  let api: ApiHarness;
  const now = new Date();
  const yesterday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - 3600_000);

  beforeAll(async () => {
    const policy = OperatorPolicy.parse({
      ...readOperatorPolicy().policy,
      budgets: { teams: { alpha: { max_calls_per_day: 10, max_usd_total: 5 } }, projects: { shop: { max_usd_per_day: 2 } } },
    });
    api = await startApi(
      { API_TOKENS: [{ name: 'a', token: ALPHA, role: 'read', team: 'alpha' }, { name: 'b', token: BETA, role: 'write', team: 'beta' }] },
      { policy },
    );
    const q = (sql: string, params: unknown[] = []) => api.ds.query(sql, params);
    for (const [id, name] of [['prj_u1', 'shop'], ['prj_u2', 'shop'], ['prj_u3', 'blog']]) {
      await q(`INSERT INTO projects (id, name, objective, requirements, config) VALUES ($1, $2, 'o', '[]', '{}')`, [id, name]);
    }
    for (const [id, prj, team, status] of [['run_u1', 'prj_u1', 'alpha', 'running'], ['run_u2', 'prj_u2', 'alpha', 'done'], ['run_u3', 'prj_u3', 'beta', 'cancelled']]) {
      await q(`INSERT INTO runs (id, project_id, workflow, status, stage, config, team) VALUES ($1, $2, 'build', $3, 'INIT', '{}', $4)`, [id, prj, status, team]);
    }
    let seq = 0;
    const call = async (run: string, status: string, o: { cost?: number | null; at?: Date | null; copied?: string; reserve?: { tokens: number; cost: number } } = {}) => {
      seq += 1;
      const id = `${run}-c${seq}`;
      await q(
        `INSERT INTO agent_calls (id, run_id, seq, stage, role, provider, model, status, prompt_hash, messages, input_tokens, output_tokens, cost_usd, finished_at, copied_from)
         VALUES ($1, $2, $3, 'PROPOSE', 'proposer', 'replay', 'm', $4, 'h', '[]', 100, 20, $5, $6, $7)`,
        [id, run, seq, status, o.cost ?? null, o.at === undefined ? now : o.at, o.copied ?? null],
      );
      if (o.reserve) await q(`INSERT INTO budget_reservations (call_id, run_id, provider, calls, tokens, cost_usd) VALUES ($1, $2, 'replay', 1, $3, $4)`, [id, run, o.reserve.tokens, o.reserve.cost]);
    };
    await call('run_u1', 'completed', { cost: 0.5 });
    await call('run_u1', 'failed'); // unpriced, counted
    await call('run_u1', 'running', { at: null, reserve: { tokens: 1100, cost: 0.02 } });
    await call('run_u2', 'completed', { cost: 1.25 });
    await call('run_u2', 'completed', { cost: 3, at: yesterday }); // before today: only with since
    await call('run_u2', 'completed', { cost: 9, copied: 'run_x-c1' }); // a fork's copy
    await call('run_u3', 'completed', { cost: 0.1 });
    await call('run_u3', 'queued', { at: null, reserve: { tokens: 500, cost: 0.01 } }); // withdrawn by the cancel
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = async (qs: string, token: string) => {
    const res = await fetch(`${api.base}/v1/usage${qs}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('a token sees its own team, today by default, grouped by project, with the caps beside and the calls in flight', async () => {
    const { status, body } = await get('', ALPHA);
    expect(status).toBe(200);
    const report = UsageReport.parse(body);
    expect(report.since).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString());
    expect(report.rows).toEqual([
      {
        team: 'alpha',
        project: 'shop',
        runs: 2,
        calls: 3,
        input_tokens: 300,
        output_tokens: 60,
        cost_usd: 1.75,
        unpriced_calls: 1,
        in_flight: { calls: 1, tokens: 1100, cost_usd: 0.02 },
        team_caps: { max_calls_per_day: 10, max_usd_total: 5 },
        project_caps: { max_usd_per_day: 2 },
      },
    ]);
  });

  it('since counts from another time; project filters; another team’s rows never appear for a team’s token', async () => {
    const day = yesterday.toISOString().slice(0, 10);
    const since = UsageReport.parse((await get(`?since=${day}`, ALPHA)).body);
    expect(since.rows).toEqual([expect.objectContaining({ team: 'alpha', project: 'shop', calls: 4, cost_usd: 4.75 })]);
    expect(UsageReport.parse((await get('?project=blog', ALPHA)).body).rows).toEqual([]);
    expect(UsageReport.parse((await get('?team=beta', ALPHA)).body).rows).toEqual([]);
    const beta = UsageReport.parse((await get('', BETA)).body);
    expect(beta.rows).toEqual([
      expect.objectContaining({ team: 'beta', project: 'blog', calls: 1, cost_usd: 0.1, in_flight: { calls: 0, tokens: 0, cost_usd: 0 }, team_caps: null, project_caps: null }),
    ]);
  });

  it('a bad parameter is a 400 naming it', async () => {
    const bad = await get('?since=yesterday', ALPHA);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^since must be an ISO date/);
    expect((await get('?team=', ALPHA)).body.message).toBe('team must not be empty');
    expect((await get('?project=a&project=b', ALPHA)).body.message).toBe('project must be a project name, given once');
    expect((await get('?teem=beta', ALPHA)).body).toMatchObject({ message: 'GET /v1/usage takes only team, project and since; unknown: teem' });
  });

  it('is behind the door', async () => {
    expect((await fetch(`${api.base}/v1/usage`)).status).toBe(401);
  });
});
