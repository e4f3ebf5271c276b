import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvalDetail, EvalList, readOperatorPolicy } from '@roundtable/contracts';
import { ApiHarness, startApi } from '../api-test-harness';

jest.setTimeout(30_000);

/**
 * Evals at the api (issue 25): an eval's runs started in one transaction, each at the eval's budget
 * per task (a vote's N sharing it), the hidden tests stored apart and never in a reply; refusals
 * that name the configuration, the task and the field, and write nothing — including what a write
 * token could try through a task (a starter outside the operator's repos, a hidden file path out of
 * its directory). The orchestrator does not run in this tier: runs stay queued.
 */
const TOKENS = { writer: 'w'.repeat(24), reader: 'r'.repeat(24) };
const CASSETTE = join(__dirname, '../../../../examples/dd-demo/cassette.yaml');
let api: ApiHarness;
let dir: string;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'rt-eval-int-')));
  writeFileSync(join(dir, 'seed.py'), 'X = 1\n');
  api = await startApi(
    { API_TOKENS: [{ name: 'writer', token: TOKENS.writer, role: 'write' }, { name: 'reader', token: TOKENS.reader, role: 'read' }] },
    { policy: readOperatorPolicy().policy, servedProviders: ['replay', 'second'] },
  );
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: 'GET' | 'POST', path: string, body?: unknown, token = TOKENS.writer) {
  const res = await fetch(`${api.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the reply's fields it checks
  return { status: res.status, json: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null) as any, text };
}

const ROLES = ['proposer', 'critic', 'reviser', 'engineer', 'validator', 'synthesizer'];
const team = () => ({
  name: 'team',
  project: {
    providers: { replay: { type: 'replay', cassette: CASSETTE }, second: { type: 'replay', cassette: CASSETTE } },
    agents: Object.fromEntries(ROLES.map((r) => [r, { provider: r === 'critic' ? 'second' : 'replay', model: 'm1', max_tokens: 1000 }])),
    budget: { max_tokens: 999_999, max_calls: 3 },
  },
});
const task = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  difficulty: 'easy',
  objective: `Implement ${id}`,
  requirements: ['it works'],
  test_command: 'python -m pytest -q',
  hidden_command: 'python -m pytest -q .eval_hidden',
  hidden: [{ path: `test_${id.replace(/-/g, '_')}.py`, content: `# eval-hidden: ${id}\ndef test_hidden_one():\n    assert True\n` }],
  ...over,
});
const request = (over: Record<string, unknown> = {}) => ({ suite: 'coding', score: 'hidden_tests', configs: [team()], budget: { max_tokens: 12_000, max_cost_usd: 0.9 }, tasks: [task('one'), task('two', { starter: dir })], ...over });

const counts = async () => (await api.ds.query(`SELECT (SELECT count(*) FROM evals)::int AS evals, (SELECT count(*) FROM runs WHERE eval_cell_id IS NOT NULL)::int AS runs`))[0];

describe('POST /v1/evals', () => {
  it('starts every task under every configuration and the baselines, at the budget per task, the vote sharing it; GET reads it without the hidden tests', async () => {
    const created = await call('POST', '/v1/evals', request());
    expect(created.status).toBe(201);
    const detail = EvalDetail.parse(created.json);
    expect(created.text).not.toContain('eval-hidden');
    expect(detail.configs.map((c) => [c.name, c.kind, c.samples])).toEqual([
      ['team', 'as_configured', 1],
      ['team.solo', 'solo', 1],
      ['team.one-provider', 'one_provider', 1],
      // ⌊12000 / (2 × 1000)⌋ = 6, at most 5.
      ['team.vote', 'vote', 5],
    ]);
    expect(detail).toMatchObject({ status: 'running', submitted_by: 'writer', progress: { done: 0, total: 8 }, tasks: [{ id: 'one' }, { id: 'two' }] });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the stored project file, read field by field
    const runs: { config: Record<string, any>; cell: string; arm: string; task: string }[] = await api.ds.query(
      `SELECT r.config, c.id AS cell, c.config AS arm, c.task_id AS task FROM runs r JOIN eval_cells c ON c.id = r.eval_cell_id WHERE c.eval_id = $1`,
      [detail.id],
    );
    expect(runs).toHaveLength(2 * (1 + 1 + 1 + 5));
    for (const r of runs) {
      const samples = r.arm === 'team.vote' ? 5 : 1;
      // Every run at its share of the per-task budget, whatever the configuration file said.
      expect(r.config.budget.max_tokens).toBe(Math.floor(12_000 / samples));
      expect(r.config.budget.max_cost_usd * samples).toBeLessThanOrEqual(0.9);
      expect(r.config.approvals).toEqual([]);
      expect(JSON.stringify(r.config)).not.toContain('eval-hidden');
      expect(r.config.repo ?? null).toBe(r.task === 'two' ? dir : null);
    }
    expect(runs.filter((r) => r.arm === 'team.solo').every((r) => r.config.pipeline === 'solo')).toBe(true);
    // The hidden tests are stored apart, for the scorer only.
    const [stored] = await api.ds.query(`SELECT hidden, spec FROM eval_tasks WHERE eval_id = $1 AND task_id = 'one'`, [detail.id]);
    expect(stored.hidden[0].content).toContain('# eval-hidden: one');
    expect(JSON.stringify(stored.spec)).not.toContain('eval-hidden');

    const read = await call('GET', `/v1/evals/${detail.id}`, undefined, TOKENS.reader);
    expect(read.status).toBe(200);
    expect(read.text).not.toContain('eval-hidden');
    expect(EvalDetail.parse(read.json).cells).toHaveLength(8);
    const list = EvalList.parse((await call('GET', '/v1/evals?suite=coding', undefined, TOKENS.reader)).json);
    expect(list.evals.map((e) => e.id)).toContain(detail.id);
    expect((await call('GET', '/v1/evals?suite=nope', undefined, TOKENS.reader)).json.evals).toEqual([]);
    const plot = await call('GET', `/v1/evals/${detail.id}/plot.svg`, undefined, TOKENS.reader);
    expect(plot.status).toBe(200);
    expect(plot.text).toMatch(/^<svg/);
  });

  it.each([
    ['a missing budget', { budget: undefined }, 'budget'],
    ['two configurations with one name', { configs: [team(), team()] }, 'team'],
    ['a hidden file path out of its directory', { tasks: [task('one', { hidden: [{ path: '../../etc/cron.d/x', content: 'x' }] })] }, 'tasks.0.hidden.0.path'],
    ['a starter outside the operator\'s repos', { tasks: [task('one', { starter: '/etc' })] }, 'configs.team.repo'],
    ['more runs than one eval may start', { tasks: Array.from({ length: 51 }, (_, i) => task(`t${i}`)) }, 'would start 408 runs'],
    ['a provider no worker serves', { configs: [{ name: 'team', project: { ...team().project, providers: { replay: { type: 'replay', cassette: CASSETTE }, second: { type: 'replay', cassette: CASSETTE }, third: { type: 'replay', cassette: CASSETTE } }, agents: { ...team().project.agents, engineer: { provider: 'third', model: 'm' } } } }] }, 'third'],
  ])('refuses %s, naming it, and writes nothing', async (_what, over, named) => {
    const before = await counts();
    const res = await call('POST', '/v1/evals', request(over));
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_eval');
    expect(res.json.message).toContain(named);
    expect(await counts()).toEqual(before);
  });

  it('needs a write token to start one; an unknown eval is a 404', async () => {
    expect((await call('POST', '/v1/evals', request(), TOKENS.reader)).status).toBe(403);
    const missing = await call('GET', '/v1/evals/eval_0000000000', undefined, TOKENS.reader);
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe('eval_not_found');
  });
});
