import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { runCli } from './cli';
import { DEMO_CAPS } from './demo-events.fixture';
import { captureIo, FakeApi, sendJson, sseFrame, startFakeApi, startSse } from './fake-api.fixture';

const EXP = 'exp_0123456789';
const RUN = 'run_exp1';
const HASH = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

const PREREG = {
  title: 'Momentum beats buy-and-hold',
  hypothesis: 'a 20-day momentum filter cuts drawdown without losing return',
  expected_result: 'max drawdown below 0.2 with sharpe above 1',
  method: { description: 'backtest 2015-2024', command: 'python backtest.py', metrics: ['sharpe', 'max_dd'], timeout_s: 600 },
  success_criteria: [{ id: 'S1', expr: 'sharpe > 1' }],
  failure_criteria: [{ id: 'F1', expr: 'max_dd > 0.2', note: 'worse than holding' }],
  data: null,
  assumptions: ['no transaction costs'],
  domain: 'trading',
};

const detail = (over: Record<string, unknown> = {}) => ({
  id: EXP,
  project: 'backtest',
  title: 'Momentum beats buy-and-hold',
  status: 'locked',
  hypothesis_id: null,
  repo: '/code/backtest',
  commit: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  preregistration: PREREG,
  prereg_hash: HASH,
  locked_at: '2026-04-01T10:00:00.000Z',
  source: null,
  run_id: null,
  runs: [],
  result: null,
  decision: null,
  interpretation: null,
  interpreted_at: null,
  created_by: 'writer',
  created_at: '2026-04-01T10:00:00.000Z',
  ...over,
});

const DECIDED = detail({
  status: 'decided',
  run_id: RUN,
  runs: [{ id: RUN, status: 'done', stage: 'DONE', created_at: '2026-04-01T11:00:00.000Z' }],
  result: { prereg_hash: HASH, commit: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', metrics: { sharpe: 0.7, max_dd: 0.31 }, exit_code: 0, duration_s: 12.5, output_artifact_id: 'art_1', output_tail: 'ok', run_id: RUN },
  decision: 'KILL',
  interpretation: {
    criteria: [
      { id: 'S1', kind: 'success', expr: 'sharpe > 1', holds: false, reading: { holds: false, evidence: 'sharpe 0.7' } },
      { id: 'F1', kind: 'failure', expr: 'max_dd > 0.2', holds: true, reading: null },
    ],
    computed: 'KILL',
    interpreter_decision: 'INCONCLUSIVE',
    override_request: { decision: 'INCONCLUSIVE', reason: 'the 2020 crash dominates the drawdown' },
    summary: 'momentum lost on both counts',
    review: { agrees: false, disagreements: ['the crash is inside the preregistered window'], summary: 'the reading excuses a preregistered period' },
    open_question: 'does the filter help outside 2020?',
    notes: [],
    trading_critique: null,
  },
  interpreted_at: '2026-04-01T11:05:00.000Z',
});

const RUN_DETAIL = {
  id: RUN,
  project: 'backtest',
  workflow: 'experiment',
  status: 'done',
  stage: 'DONE',
  round: 0,
  fix_round: 0,
  verdict: null,
  confidence: null,
  halt_reason: null,
  criteria: null,
  created_at: '2026-04-01T11:00:00.000Z',
  usage: { calls: 2, failed_calls: 0, input_tokens: 1000, output_tokens: 200, tokens: 1200, cost_usd: 0.01, seconds: 30 },
  caps: { ...DEMO_CAPS, per_provider: {} },
};

const events = (ending: [string, Record<string, unknown>]): RunEventEnvelope[] =>
  (
    [
      ['run_created', { project: 'backtest', workflow: 'experiment' }],
      ['run_started', { workspace: '/code/backtest' }],
      ['stage_changed', { from: 'INIT', to: 'RUN', reason: 'pinned at 4b825dc' }],
      ending,
    ] as [string, Record<string, unknown>][]
  ).map(([type, payload], i) => ({ type, run_id: RUN, sequence: i + 1, payload, created_at: new Date(Date.parse('2026-04-01T11:00:00.000Z') + i * 1000).toISOString() }));

/** `roundtable experiment …` against a fake api: what each action sends and prints, and the api's refusals. */
describe('roundtable experiment', () => {
  let api: FakeApi;
  let ending: [string, Record<string, unknown>] = ['run_completed', { status: 'done', verdict: null, confidence: null }];
  const dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-exp-'));
  writeFileSync(
    path.join(dir, 'exp.yaml'),
    [
      'workflow: experiment',
      'project: backtest',
      'repo: ./code',
      'preregistration:',
      '  title: Momentum beats buy-and-hold',
      '  hypothesis: "${HYP}"',
      'interpreter: { provider: replay, model: m }',
      'critic: { provider: replay, model: m }',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'bad.yaml'), 'workflow: experiment\nproject: bad\n');

  beforeEach(async () => {
    ending = ['run_completed', { status: 'done', verdict: null, confidence: null }];
    api = await startFakeApi((req, res) => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url === '/v1/experiments') {
        const body = JSON.parse(req.body) as { project: string };
        if (body.project === 'bad') {
          return sendJson(res, 400, {
            error: 'invalid_config',
            message: 'invalid experiment file:',
            issues: [
              { path: 'repo', message: 'repo is the git repository the method runs in, a path the operator allows' },
              { path: 'preregistration', message: 'give the preregistration (or draft_from, with a proposer, to have one drafted)' },
            ],
          });
        }
        return sendJson(res, 201, detail());
      }
      if (req.method === 'POST' && url === `/v1/experiments/${EXP}/run`) return sendJson(res, 202, { experiment_id: EXP, run_id: RUN });
      if (req.method === 'POST' && url === '/v1/experiments/exp_done/run') {
        return sendJson(res, 409, { error: 'experiment_has_result', message: 'experiment exp_done already has a result (run run_old): a preregistered experiment runs once' });
      }
      if (url === `/v1/experiments/${EXP}`) return sendJson(res, 200, DECIDED);
      if (url.startsWith('/v1/experiments?') || url === '/v1/experiments') {
        return sendJson(res, 200, {
          items: [
            { id: EXP, project: 'backtest', title: 'Momentum beats buy-and-hold', status: 'decided', decision: 'KILL', run_id: RUN, created_at: '2026-04-01T10:00:00.000Z' },
            { id: 'exp_draft', project: 'backtest', title: null, status: 'draft', decision: null, run_id: null, created_at: '2026-03-30T10:00:00.000Z' },
          ],
        });
      }
      if (url === `/v1/runs/${RUN}`) return sendJson(res, 200, RUN_DETAIL);
      if (url === `/v1/runs/${RUN}/events`) {
        const after = Number(req.headers['last-event-id'] ?? 0);
        startSse(res);
        res.end(events(ending).filter((e) => e.sequence > after).map(sseFrame).join(''));
        return;
      }
      return sendJson(res, 404, { error: 'not_found', message: `nothing at ${url}` });
    });
  });
  afterEach(async () => {
    await api.close();
  });

  const run = async (argv: string[], opts: { tty?: boolean } = {}) => {
    const io = captureIo({ cwd: dir, env: { HYP: 'momentum cuts drawdown', NO_COLOR: '1' }, tty: opts.tty, columns: 120 });
    const code = await runCli([...argv, '--api', api.url], io.io);
    return { code, out: io.stdout(), err: io.stderr() };
  };

  it('preregister FILE posts the file (variables expanded, repo absolute) and prints the id alone, then the hash, the commit, the criteria and the next command on stderr', async () => {
    const { code, out: id, err: out } = await run(['experiment', 'preregister', 'exp.yaml']);
    expect({ code, id }).toEqual({ code: 0, id: `${EXP}\n` });
    const post = api.requests.at(-1)!;
    expect([post.method, post.url]).toEqual(['POST', '/v1/experiments']);
    const body = JSON.parse(post.body) as { repo: string; preregistration: { hypothesis: string } };
    expect(body.repo).toBe(path.join(dir, 'code'));
    expect(body.preregistration.hypothesis).toBe('momentum cuts drawdown');
    expect(out).toContain(EXP);
    expect(out).toContain(`hash: ${HASH.slice(0, 12)}\n`);
    expect(out).not.toContain(HASH.slice(0, 13));
    expect(out).toContain('commit: 4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    expect(out).toContain('success S1: sharpe > 1');
    expect(out).toContain('failure F1: max_dd > 0.2 (worse than holding)');
    expect(out).toContain(`next: roundtable experiment run ${EXP} --api ${api.url}`);
  });

  it("a refused file (400) prints every issue with its path and exits 1, as `run`'s invalid config does", async () => {
    const { code, out, err } = await run(['experiment', 'preregister', 'bad.yaml']);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toContain('the API refused the request (HTTP 400 invalid_config): invalid experiment file:');
    expect(err).toContain('  repo: repo is the git repository the method runs in');
    expect(err).toContain('  preregistration: give the preregistration');
  });

  it('run ID follows the run to its end, then prints the decision and each criterion; KILL exits 0', async () => {
    const { code, out, err } = await run(['experiment', 'run', EXP]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(api.requests.find((r) => r.method === 'POST')?.url).toBe(`/v1/experiments/${EXP}/run`);
    expect(out).toContain(`[run ${RUN}] project=backtest workflow=experiment`);
    expect(out).not.toContain('[INIT] workspace'); // an experiment has no workspace of its own: its method runs in a worktree at the pinned commit
    expect(out).toContain('-> RUN');
    expect(out).toContain(`decision: KILL (experiment ${EXP}, decided)`);
    expect(out).toContain('success S1: sharpe > 1: does not hold; interpreter: does not hold (sharpe 0.7)');
    expect(out).toContain('failure F1: max_dd > 0.2: holds; interpreter: no reading');
    expect(out).toContain('override request: INCONCLUSIVE (not applied');
  });

  it("run ID exits with the run's code when the run did not end done, and prints no decision", async () => {
    ending = ['run_completed', { status: 'halted', verdict: null, confidence: null }];
    const { code, out } = await run(['experiment', 'run', EXP]);
    expect(code).toBe(2);
    expect(out).not.toContain('decision:');
  });

  it('run ID --no-follow prints the run id alone', async () => {
    expect(await run(['experiment', 'run', EXP, '--no-follow'])).toMatchObject({ code: 0, out: `${RUN}\n` });
    expect(api.requests.some((r) => r.url.includes('/events'))).toBe(false);
  });

  it("a 409 on run prints the api's message and exits 1, as every other 409 does", async () => {
    const { code, err } = await run(['experiment', 'run', 'exp_done']);
    expect(code).toBe(1);
    expect(err).toContain('HTTP 409 experiment_has_result: experiment exp_done already has a result (run run_old)');
  });

  it('show ID prints the status, hash, commit, hypothesis, criteria with their readings, the decision, the override request (not applied), the review and the metrics', async () => {
    const { code, out } = await run(['experiment', 'show', EXP]);
    expect(code).toBe(0);
    expect(out).toContain('status: decided (locked 2026-04-01T10:00:00.000Z)');
    expect(out).toContain(`hash: ${HASH}`);
    expect(out).toContain('commit: 4b825dc642cb6eb9a060e54bf8d69288fbee4904 in /code/backtest');
    expect(out).toContain('hypothesis: a 20-day momentum filter cuts drawdown without losing return');
    expect(out).toContain('success S1: sharpe > 1: does not hold; interpreter: does not hold (sharpe 0.7)');
    expect(out).toContain('decision: KILL (computed KILL; the interpreter said INCONCLUSIVE)');
    expect(out).toMatch(/override request: INCONCLUSIVE \(not applied[^\n]*\): the 2020 crash dominates the drawdown/);
    expect(out).toContain('review: disagrees: the reading excuses a preregistered period\n  - the crash is inside the preregistered window');
    expect(out).toContain('open question: does the filter help outside 2020?');
    expect(out).toContain('  sharpe = 0.7\n  max_dd = 0.31');
    const json = await run(['experiment', 'show', EXP, '--json']);
    expect(JSON.parse(json.out)).toEqual(DECIDED);
  });

  it('list prints a table on a terminal (tab-separated rows otherwise) and passes --project and --status', async () => {
    const { code, out } = await run(['experiment', 'list', '--project', 'backtest', '--status', 'decided'], { tty: true });
    expect(code).toBe(0);
    expect(api.requests.at(-1)?.url).toBe('/v1/experiments?project=backtest&status=decided');
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^EXPERIMENT\s+PROJECT\s+TITLE\s+STATUS\s+DECISION\s+CREATED$/);
    expect(lines[1]).toMatch(new RegExp(`^${EXP}\\s+backtest\\s+Momentum beats buy-and-hold\\s+decided\\s+KILL\\s+2026-04-01`));
    expect(lines[2]).toMatch(/^exp_draft\s+backtest\s+-\s+draft\s+-\s+2026-03-30/);
    const plain = await run(['experiment', 'list']);
    expect(plain.out.split('\n')[0]).toBe(`${EXP}\tbacktest\tMomentum beats buy-and-hold\tdecided\tKILL\t2026-04-01T10:00:00.000Z`);
  });

  it('usage: a wrong action or a missing id is a usage error; help describes the actions', async () => {
    const wrong = await run(['experiment', 'start', EXP]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('unknown experiment action start');
    expect((await run(['experiment', 'show'])).err).toContain('experiment show needs <experiment>');
    for (const argv of [['experiment', '--help'], ['help', 'experiment']]) {
      const help = captureIo();
      expect(await runCli(argv, help.io)).toBe(0);
      expect(help.stdout()).toContain('Usage: roundtable experiment <action> [<target>] [options]');
      expect(help.stdout()).toContain('experiment preregister FILE');
      expect(help.stdout()).toContain('--no-follow');
    }
  });
});
