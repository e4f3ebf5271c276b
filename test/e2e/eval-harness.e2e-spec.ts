import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify as toYaml } from 'yaml';
import { BuildRole, type EvalDetail, loadEvalSuite, type LoadedEvalSuite } from '@roundtable/contracts';
import { evalFakeScript, type FakeLlmServer, startFakeLlmServer } from '@roundtable/testing';
import { workbenchSuite } from './support/workbench-suite';
import { openWithToken } from './support/workbench-pages';
import { checkEvalPages } from './support/eval-pages';

jest.setTimeout(900_000);

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/apps/cli/main.js');
const KEY = 'sk-e2e-openai-0123456789';
const TOKEN = `evals-${'e'.repeat(24)}`;
const run = promisify(execFile);
/** The hidden tests' marks: the sentinel line of every hidden file and the test_hidden_ prefix of their tests. */
const HIDDEN_MARKS = ['# eval-hidden:', 'test_hidden_'];

type Cfg = Record<string, unknown>;

/** Every role of a build on `provider`, except those `patch` moves. */
function agents(provider: string, model: string, patch: Record<string, string> = {}): Cfg {
  return Object.fromEntries(BuildRole.options.filter((r) => r !== 'reviewer').map((r) => [r, { provider: patch[r] ?? provider, model, max_tokens: 2048 }]));
}

/** Every file under dir (recursively, .git aside) whose text holds one of the marks. */
function filesHolding(dir: string, marks: string[]): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === '.git') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) found.push(...filesHolding(p, marks));
    else if (marks.some((m) => readFileSync(p, 'utf8').includes(m))) found.push(p);
  }
  return found;
}

/**
 * The evaluation harness end to end (issue 25): the shipped coding suite, the CLI as a user runs
 * it, the four services as separate processes, the real OpenAI SDK over HTTP to four fake wire
 * servers — a scripted "strong" model (the good solution to every task), a "weak" one (the flawed
 * solution on medium and hard tasks), and a twin of each with the same script — and every answer
 * scored with the hidden tests in the sandbox.
 */
describe('roundtable eval on the shipped coding suite against scripted fake models (separate processes, sandbox, Chromium)', () => {
  const servers: Record<string, FakeLlmServer> = {};
  let tmp: string;
  let suite: LoadedEvalSuite & { score: 'hidden_tests' };
  const wb = workbenchSuite({ pipeline: { providerQueues: 'strong,strong_twin,weak,weak_twin' }, env: { E2E_OPENAI_KEY: KEY, API_TOKENS: `evaluator:${TOKEN}:write` } });

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-eval-'));
    suite = loadEvalSuite(path.join(REPO, 'evals/coding')) as typeof suite;
    for (const [name, model] of [['strong', 'strong'], ['strong_twin', 'strong'], ['weak', 'weak'], ['weak_twin', 'weak']] as const) {
      servers[name] = await startFakeLlmServer({ script: evalFakeScript(suite, model) });
    }
    const providers = Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, { type: 'openai_compat', api_key_env: 'E2E_OPENAI_KEY', base_url: s.baseUrls.openai }]));
    const write = (name: string, cfg: Cfg) => writeFileSync(path.join(tmp, `${name}.yaml`), toYaml({ project: name, providers, ...cfg }));
    // The team: a mixed pipeline, the critic and the validator on the strong model's twin (another provider).
    write('team', { agents: agents('strong', 'gpt-5', { critic: 'strong_twin', validator: 'strong_twin' }) });
    write('strong', { pipeline: 'solo', agents: agents('strong', 'gpt-5') });
    write('weak', { pipeline: 'solo', agents: agents('weak', 'gpt-5-mini') });
    write('weak-twin', { pipeline: 'solo', agents: agents('weak_twin', 'gpt-5-mini') });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s.close()));
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const cli = (args: string[]) => run(process.execPath, [CLI, ...args, '--evals-dir', path.join(REPO, 'evals'), '--api', wb.pipeline.api, '--poll-ms', '500'], { cwd: tmp, env: { ...process.env, ROUNDTABLE_TOKEN: TOKEN }, maxBuffer: 16 * 1024 * 1024, timeout: 600_000 });

  /** Tokens and USD each cell's runs recorded, from the agent calls themselves. */
  const recordedUsage = (evalId: string) =>
    wb.pipeline.sql<{ cell: string; config: string; tokens: number; cost: number; runs: number }>(
      `SELECT c.id AS cell, c.config, coalesce(sum(a.input_tokens + a.output_tokens), 0)::int AS tokens, coalesce(sum(a.cost_usd), 0)::float8 AS cost,
              count(DISTINCT r.id)::int AS runs
         FROM eval_cells c JOIN runs r ON r.eval_cell_id = c.id LEFT JOIN agent_calls a ON a.run_id = r.id
        WHERE c.eval_id = $1 GROUP BY c.id, c.config`,
      [evalId],
    );

  it('strong vs weak vs an identical weak twin: the table, JSON and plot written; the strong fake higher with intervals apart; the twins no different; no cell over the cap; hidden tests in no prompt and no workspace', async () => {
    const out = path.join(tmp, 'out-1');
    const { stdout, stderr } = await cli(['eval', 'coding', '--configs', 'strong.yaml,weak.yaml,weak-twin.yaml', '--no-baselines', '--max-tokens', '20000', '--max-cost-usd', '0.5', '--out', out]);
    const id = /eval (eval_[0-9a-f]+):/.exec(stderr)![1];
    expect(stderr).toContain('20 tasks × 3 configurations (strong, weak, weak-twin) = 60 cells');
    // The progress bar, not a TTY: a line each time more cells are scored, ending at all of them.
    expect(stderr).toMatch(/\[[#-]{24}\] \d+\/60 cells scored/);

    const detail = JSON.parse(readFileSync(path.join(out, 'eval.json'), 'utf8')) as EvalDetail;
    expect(readFileSync(path.join(out, 'plot.svg'), 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    for (const name of ['strong', 'weak', 'weak-twin']) expect(stdout).toContain(name);
    expect(detail.cells.filter((c) => c.status !== 'scored').map((c) => `${c.task}/${c.config}: ${c.reason}`)).toEqual([]);

    const by = Object.fromEntries(detail.summary.configs.map((c) => [c.name, c]));
    expect(by.strong).toMatchObject({ n: 20, passed: 20 });
    const weakPassed = suite.tasks.filter((t) => t.task.difficulty === 'easy').length;
    expect(by.weak).toMatchObject({ n: 20, passed: weakPassed });
    expect(by['weak-twin']).toMatchObject({ n: 20, passed: weakPassed });
    // Better scores higher, with an interval that excludes the other's, and the paired test agrees.
    expect(by.strong.interval![0]).toBeGreaterThan(by.weak.interval![1]);
    const pair = (a: string, b: string) => detail.summary.pairs.find((p) => p.a === a && p.b === b)!;
    expect(pair('strong', 'weak')).toMatchObject({ significant: true, a_only: 20 - weakPassed, b_only: 0 });
    expect(pair('strong', 'weak').interval[0]).toBeGreaterThan(0);
    expect(pair('weak', 'weak-twin')).toMatchObject({ significant: false, a_only: 0, b_only: 0, p_value: 1 });
    expect(stdout).toMatch(/strong vs weak: .*significant/);
    expect(stdout).toMatch(/weak vs weak-twin: .*no significant difference/);

    // Equal budget, from what the calls recorded: no cell spent more than the cap.
    const usage = await recordedUsage(id);
    expect(usage).toHaveLength(60);
    for (const u of usage) {
      expect(u.tokens).toBeGreaterThan(0);
      expect(u.tokens).toBeLessThanOrEqual(20000);
      expect(u.cost).toBeLessThanOrEqual(0.5);
    }

    // The hidden tests never reached a prompt: every fake's entries forbid their marks (a guard that
    // fails answers with an error the run would have recorded), and no recorded message holds them.
    for (const s of Object.values(servers)) expect(s.requests.filter((q) => q.status !== 200)).toEqual([]);
    const leaked = await wb.pipeline.sql<{ id: string }>(
      `SELECT a.id FROM agent_calls a JOIN runs r ON r.id = a.run_id JOIN eval_cells c ON c.id = r.eval_cell_id
        WHERE c.eval_id = $1 AND (a.messages::text LIKE '%eval-hidden:%' OR a.messages::text LIKE '%test_hidden_%')`,
      [id],
    );
    expect(leaked).toEqual([]);
    // Nor a workspace: the hidden tests are only in the scoring copies, beside each workspace.
    const runIds = (await wb.pipeline.sql<{ id: string }>(`SELECT r.id FROM runs r JOIN eval_cells c ON c.id = r.eval_cell_id WHERE c.eval_id = $1`, [id])).map((r) => r.id);
    expect(runIds).toHaveLength(60);
    for (const r of runIds) {
      expect(filesHolding(path.join(wb.pipeline.workspaceRoot, r, 'workspace'), HIDDEN_MARKS)).toEqual([]);
      expect(existsSync(path.join(wb.pipeline.workspaceRoot, r, 'eval-score', '.eval_hidden'))).toBe(true);
    }
  });

  it('the team and its baselines at equal budget (solo, one provider, a vote of N): every configuration under the cap, the vote N samples sharing it; shown in the workbench', async () => {
    const tasks = suite.tasks.slice(0, 3).map((t) => t.task.id);
    const out = path.join(tmp, 'out-2');
    const { stdout, stderr } = await cli(['eval', 'coding', '--configs', 'team.yaml', '--tasks', tasks.join(','), '--max-tokens', '40000', '--out', out]);
    const id = /eval (eval_[0-9a-f]+):/.exec(stderr)![1];
    const detail = JSON.parse(readFileSync(path.join(out, 'eval.json'), 'utf8')) as EvalDetail;
    expect(detail.configs.map((c) => [c.name, c.kind])).toEqual([
      ['team', 'as_configured'],
      ['team.solo', 'solo'],
      ['team.one-provider', 'one_provider'],
      ['team.vote', 'vote'],
    ]);
    const vote = detail.configs.find((c) => c.kind === 'vote')!;
    // N fills the budget: ⌊40000 / (2 × 2048)⌋ = 9, at most 5.
    expect(vote.samples).toBe(5);
    for (const name of ['team', 'team.solo', 'team.one-provider', 'team.vote']) expect(stdout).toContain(name);
    expect(detail.cells.filter((c) => !c.passed).map((c) => `${c.task}/${c.config}: ${c.reason} (${c.runs.map((r) => r.status).join(', ')})`)).toEqual([]);
    expect(detail.summary.configs.map((c) => [c.name, c.passed, c.n])).toEqual([
      ['team', 3, 3],
      ['team.solo', 3, 3],
      ['team.one-provider', 3, 3],
      ['team.vote', 3, 3],
    ]);
    const usage = await recordedUsage(id);
    expect(usage).toHaveLength(12);
    for (const u of usage) {
      expect(u.tokens).toBeLessThanOrEqual(40000);
      expect(u.runs).toBe(u.config === 'team.vote' ? 5 : 1);
    }
    // The team's runs went through the whole pipeline; the solo ones made only engineer calls.
    const roles = await wb.pipeline.sql<{ config: string; roles: string[] }>(
      `SELECT c.config, array_agg(DISTINCT a.role ORDER BY a.role) AS roles FROM eval_cells c JOIN runs r ON r.eval_cell_id = c.id JOIN agent_calls a ON a.run_id = r.id
        WHERE c.eval_id = $1 GROUP BY c.config ORDER BY c.config`,
      [id],
    );
    const rolesOf = Object.fromEntries(roles.map((r) => [r.config, r.roles]));
    expect(rolesOf['team.solo']).toEqual(['engineer']);
    expect(rolesOf['team.vote']).toEqual(['engineer']);
    expect(rolesOf.team).toEqual(expect.arrayContaining(['critic', 'engineer', 'proposer']));

    const page = await openWithToken(wb.context, `${wb.pipeline.api}/runs`, TOKEN, wb.pageErrors, { untilRoleKnown: true });
    try {
      await checkEvalPages(page, wb.pipeline.api, id, { configs: ['team', 'team.solo', 'team.one-provider', 'team.vote'], tasks: 3 });
    } finally {
      await page.close();
    }
  });
});

