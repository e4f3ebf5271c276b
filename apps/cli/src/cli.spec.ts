import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import type { RunEventEnvelope } from '@roundtable/contracts';
import { runCli } from './cli';
import { DEMO_CAPS, DEMO_RUN, demoEvents, demoEventsEndingWith } from './demo-events.fixture';
import { captureIo, closedPort, FakeApi, RecordedRequest, sendJson, sseFrame, startFakeApi, startSse } from './fake-api.fixture';

const runDetail = (over: Record<string, unknown> = {}) => ({
  id: DEMO_RUN,
  project: 'dd-demo',
  workflow: 'build',
  status: 'running',
  stage: 'PROPOSE',
  round: 1,
  fix_round: 0,
  verdict: null,
  confidence: null,
  halt_reason: null,
  criteria: null,
  created_at: '2026-01-01T10:00:00.000Z',
  started_at: '2026-01-01T10:00:00.000Z',
  finished_at: null,
  usage: { calls: 8, failed_calls: 0, input_tokens: 15000, output_tokens: 5461, tokens: 20461, cost_usd: 0.1, seconds: 49 },
  caps: { ...DEMO_CAPS, per_provider: {} },
  usage_by_provider: { anthropic: { calls: 3, input_tokens: 6000, output_tokens: 1600, cost_usd: 0.04 } },
  ...over,
});

/** An API whose run streams `events` over SSE (or answers 404 on /events when `events` is null). */
function runApi(events: RunEventEnvelope[] | null, detail = runDetail()) {
  return (req: RecordedRequest, res: ServerResponse) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'POST' && url.pathname === '/v1/runs') return sendJson(res, 202, { id: DEMO_RUN, status: 'queued', links: {} });
    if (url.pathname === `/v1/runs/${DEMO_RUN}`) return sendJson(res, 200, detail);
    if (url.pathname === `/v1/runs/${DEMO_RUN}/events`) {
      if (!events) return sendJson(res, 404, { error: 'not_found', message: `Cannot GET /v1/runs/${DEMO_RUN}/events` });
      const after = Number(req.headers['last-event-id'] ?? 0);
      startSse(res);
      res.end(events.filter((e) => e.sequence > after).map(sseFrame).join(''));
      return;
    }
    sendJson(res, 404, { error: 'run_not_found', message: `no run ${url.pathname}` });
  };
}

describe('roundtable CLI commands against a stand-in API', () => {
  let api: FakeApi | undefined;
  let dir: string;
  let projectFile: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-spec-'));
    projectFile = path.join(dir, 'project.yaml');
    writeFileSync(projectFile, 'project: dd-demo\nautonomy: 2\nproviders:\n  replay: { type: replay, cassette: cassette.yaml }\n');
  });
  afterEach(async () => {
    await api?.close();
    api = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('run --follow posts the resolved project, renders the stream and exits 0 for done', async () => {
    api = await startFakeApi(runApi(demoEvents(), runDetail({ status: 'done', verdict: 'ACCEPT', confidence: 0.82 })));
    const out = captureIo({ cwd: dir, env: { ROUNDTABLE_TOKEN: 'sekret' } });
    const code = await runCli(['run', 'project.yaml', '--follow', '--api', api.url], out.io);
    expect({ code, stderr: out.stderr() }).toEqual({ code: 0, stderr: '' });

    const post = api.requests.find((r) => r.method === 'POST')!;
    expect(JSON.parse(post.body)).toEqual({ project: 'dd-demo', autonomy: 2, providers: { replay: { type: 'replay', cassette: path.join(dir, 'cassette.yaml') } } });
    expect(post.headers['content-type']).toBe('application/json');
    expect(api.requests.every((r) => r.headers.authorization === 'Bearer sekret')).toBe(true);

    const lines = out.stdout().trimEnd().split('\n');
    expect(lines[0]).toBe(`[run ${DEMO_RUN}] project=dd-demo autonomy=2 budget: 12 calls / 200k tok / $5.00 / 900s`);
    expect(lines).toContain('[CRITIQUE] critic xai/grok-4 4.1s in=1104 out=388 $0.01');
    // Not a TTY: progress lines only after stage changes, no control codes.
    expect(lines[lines.indexOf('-> CRITIQUE: P1 valid') + 1]).toBe('  budget: calls 1/12, tokens 1,253/200,000, cost $0.01/$5.00, time 2s/900s');
    expect(out.stdout()).not.toMatch(/\x1b/);
    expect(lines.slice(-2)).toEqual([
      // The closing line quotes the API's usage, not the tally of the (shortened) stream.
      '[DONE] 8 calls, 20,461 tokens, $0.10, 49s. verdict: ACCEPT (confidence 0.82)',
      `report: roundtable report ${DEMO_RUN} --api ${api.url}`,
    ]);
  });

  it('run expands ${VAR} from the shell it runs in before posting; an unset one posts nothing and exits 1', async () => {
    api = await startFakeApi(runApi(demoEvents()));
    writeFileSync(projectFile, 'project: "${NAME:-dd-demo}"\nproviders:\n  replay: { type: replay, cassette: "${TAPES}/c.yaml" }\n');
    const out = captureIo({ cwd: dir, env: { TAPES: 'tapes' } });
    expect(await runCli(['run', 'project.yaml', '--api', api.url], out.io)).toBe(0);
    // Without --follow: the run id alone, as the README promises (issue 22).
    expect({ stdout: out.stdout(), stderr: out.stderr() }).toEqual({ stdout: `${DEMO_RUN}\n`, stderr: '' });
    expect(JSON.parse(api.requests.find((r) => r.method === 'POST')!.body)).toEqual({
      project: 'dd-demo',
      providers: { replay: { type: 'replay', cassette: path.join(dir, 'tapes/c.yaml') } },
    });

    const before = api.requests.length;
    const unset = captureIo({ cwd: dir });
    expect(await runCli(['run', 'project.yaml', '--follow', '--api', api.url], unset.io)).toBe(1);
    expect(unset.stderr()).toBe(
      'project.yaml: not posted, a variable could not be expanded:\n  providers.replay.cassette: environment variable TAPES is not set (set it, or write ${TAPES:-default})\n',
    );
    const json = captureIo({ cwd: dir });
    expect(await runCli(['run', 'project.yaml', '--json', '--api', api.url], json.io)).toBe(1);
    expect(JSON.parse(json.stderr())).toMatchObject({
      error: 'project_file',
      issues: [{ path: 'providers.replay.cassette', message: 'environment variable TAPES is not set (set it, or write ${TAPES:-default})' }],
    });
    expect(api.requests.length).toBe(before);
  });

  it('run --follow on a TTY paints and redraws the progress line in place; NO_COLOR keeps the redraw but drops colour', async () => {
    api = await startFakeApi(runApi(demoEvents()));
    const tty = captureIo({ cwd: dir, tty: true, columns: 200 });
    expect(await runCli(['run', projectFile, '--follow', '--api', api.url], tty.io)).toBe(0);
    expect(tty.stdout()).toContain('\x1b[36m[PROPOSE]\x1b[39m proposer');
    expect(tty.stdout()).toContain('\r\x1b[2K');
    expect(tty.stdout()).toMatch(/waiting on proposer anthropic\/claude-sonnet-4-5/);

    const noColour = captureIo({ cwd: dir, tty: true, env: { NO_COLOR: '1' } });
    expect(await runCli(['run', projectFile, '--follow', '--api', api.url], noColour.io)).toBe(0);
    expect(noColour.stdout()).toContain('\r\x1b[2K');
    expect(noColour.stdout()).not.toMatch(/\x1b\[\d+m/);
  });

  it.each([
    ['halted', [['run_halted', { reason: 'budget: max_calls' }], ['run_completed', { status: 'halted', verdict: null, confidence: null }]], 2],
    ['needs_input', [['run_completed', { status: 'needs_input', verdict: 'NEEDS_EVIDENCE', confidence: 0.4 }]], 2],
    ['cancelled', [['run_cancelled', { reason: null }]], 3],
    ['failed', [['run_failed', { reason: 'workspace could not be prepared' }]], 1],
  ] as [string, [string, Record<string, unknown>][], number][])('a run that ends %s exits %i', async (status, ending, exit) => {
    api = await startFakeApi(runApi(demoEventsEndingWith(ending)));
    const out = captureIo({ cwd: dir });
    expect(await runCli(['run', 'project.yaml', '-f', '--api', api.url], out.io)).toBe(exit);
    const last = out.stdout().trimEnd().split('\n');
    expect(last.some((l) => l.startsWith(`[${status.toUpperCase()}]`))).toBe(true);
    if (status === 'halted') expect(last.at(-1)).toBe(`resume: roundtable resume ${DEMO_RUN} --api ${api.url} [--max-calls N …]`);
  });

  it('run --follow --json prints the envelopes as JSON lines', async () => {
    api = await startFakeApi(runApi(demoEvents()));
    const out = captureIo({ cwd: dir });
    expect(await runCli(['run', 'project.yaml', '--follow', '--json', '--api', api.url], out.io)).toBe(0);
    const parsed = out
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as RunEventEnvelope);
    expect(parsed).toEqual(demoEvents());
  });

  it('falls back to polling GET /v1/runs/:id and /calls when /events answers 404', async () => {
    let polls = 0;
    const call = (n: number, role: string, stage: string, label: string) => ({
      id: `${DEMO_RUN}-c${n}`,
      seq: n,
      stage,
      role,
      provider: 'replay',
      model: 'm',
      label,
      attempt: 1,
      status: 'completed',
      valid: true,
      error: null,
      error_code: null,
      input_tokens: 100 * n,
      output_tokens: 10 * n,
      cost_usd: null,
      latency_ms: 1500,
      created_at: null,
      finished_at: '2026-01-01T10:00:05.000Z',
    });
    const parsed: Record<string, unknown> = {
      [`${DEMO_RUN}-c1`]: { claim: 'scan once' },
      [`${DEMO_RUN}-c2`]: { verdict: 'ACCEPT', problems: [] },
    };
    api = await startFakeApi((req, res) => {
      const url = new URL(req.url, 'http://x').pathname;
      if (url === `/v1/runs/${DEMO_RUN}/events`) return sendJson(res, 404, { error: 'not_found', message: 'Cannot GET' });
      if (url === `/v1/runs/${DEMO_RUN}`) {
        polls++;
        const done = polls >= 3;
        return sendJson(res, 200, runDetail(done ? { status: 'done', stage: 'DONE', verdict: 'ACCEPT', confidence: 0.9 } : { stage: 'CRITIQUE' }));
      }
      if (url === `/v1/runs/${DEMO_RUN}/calls`) {
        return sendJson(res, 200, polls >= 3 ? [call(1, 'proposer', 'PROPOSE', 'P1'), call(2, 'critic', 'CRITIQUE', 'C1')] : [call(1, 'proposer', 'PROPOSE', 'P1')]);
      }
      const m = /\/calls\/(.+)$/.exec(url);
      if (m) return sendJson(res, 200, { parsed: parsed[decodeURIComponent(m[1])] });
      sendJson(res, 404, { error: 'x', message: url });
    });
    const out = captureIo({ cwd: dir });
    const code = await runCli(['events', DEMO_RUN, '--api', api.url], out.io);
    expect(code).toBe(0);
    expect(out.stderr()).toBe(`this API has no event stream (GET /v1/runs/${DEMO_RUN}/events answered 404); following by polling every 500 ms\n`);
    const types = out
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => l.split(' ').slice(0, 2).join(' '));
    expect(types).toEqual([
      '1 run_created',
      '2 stage_changed',
      '3 agent_call_completed',
      '4 stage_changed',
      '5 agent_call_completed',
      '6 run_completed',
    ]);
    expect(out.stdout()).toContain('gist="P1: scan once"');
    expect(out.stdout()).toContain('gist="C1 ACCEPT (0 problems)"');
  }, 15_000);

  it('events --after N resumes after that sequence; events on an unknown run is the API 404', async () => {
    api = await startFakeApi(runApi(demoEvents()));
    const out = captureIo();
    expect(await runCli(['events', DEMO_RUN, '--after', '25', '--api', api.url], out.io)).toBe(0);
    expect(api.requests.find((r) => r.url.endsWith('/events'))?.headers['last-event-id']).toBe('25');
    expect(out.stdout()).toBe(
      '26 stage_changed from=SYNTHESIZE to=DONE reason="S1 valid"\n27 run_completed status=done verdict=ACCEPT confidence=0.82\n',
    );

    const missing = captureIo();
    expect(await runCli(['events', 'run_nope', '--api', api.url], missing.io)).toBe(1);
    expect(missing.stderr()).toBe('GET /v1/runs/run_nope: HTTP 404 run_not_found: no run /v1/runs/run_nope\n');
  });

  it('a 400 from POST /v1/runs prints every issue as `path: message`; --json prints the error as JSON', async () => {
    const body = {
      error: 'invalid_project_config',
      message: 'the project config is invalid:\n  objective: required',
      issues: [
        { path: 'objective', message: 'Invalid input: expected string, received undefined' },
        { path: 'agents.critic.provider', message: 'provider "xai" is not declared under providers' },
      ],
    };
    api = await startFakeApi((_req, res) => sendJson(res, 400, body));
    const out = captureIo({ cwd: dir });
    expect(await runCli(['run', 'project.yaml', '--api', api.url], out.io)).toBe(1);
    expect(out.stderr()).toBe(
      [
        'the API refused the request (HTTP 400 invalid_project_config): the project config is invalid:',
        '  objective: Invalid input: expected string, received undefined',
        '  agents.critic.provider: provider "xai" is not declared under providers',
        '',
      ].join('\n'),
    );
    const json = captureIo({ cwd: dir });
    expect(await runCli(['run', 'project.yaml', '--json', '--api', api.url], json.io)).toBe(1);
    expect(JSON.parse(json.stderr())).toEqual({ error: 'invalid_project_config', message: body.message, status: 400, issues: body.issues });
    await api.close();

    // A message that only joins the issues is not repeated above them.
    const issue = { path: 'role', message: 'role must be one of proposer, critic' };
    api = await startFakeApi((_req, res) => sendJson(res, 400, { error: 'invalid_query', message: issue.message, issues: [issue] }));
    const query = captureIo();
    expect(await runCli(['calls', 'r', '--role', 'x', '--api', api.url], query.io)).toBe(1);
    expect(query.stderr()).toBe('the API refused the request (HTTP 400 invalid_query):\n  role: role must be one of proposer, critic\n');
  });

  it('an unreachable API says so, names the address and suggests --api', async () => {
    const port = await closedPort();
    for (const argv of [['runs'], ['show', 'r'], ['events', 'r'], ['run', 'project.yaml', '--follow']]) {
      const out = captureIo({ cwd: dir });
      expect(await runCli([...argv, '--api', `http://127.0.0.1:${port}`], out.io)).toBe(1);
      expect(out.stderr()).toBe(`cannot reach the Roundtable API at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port} (start it, or pass --api)\n`);
    }
  });

  it('runs: a table on a TTY, tab-separated lines otherwise, the array with --json; filters go to the query', async () => {
    const list = [
      { id: 'run_b', project: 'dd-demo', workflow: 'build', status: 'halted', stage: 'DONE', verdict: null, created_at: '2026-01-02T00:00:00.000Z', finished_at: null },
      { id: 'run_a', project: 'dd-demo', workflow: 'build', status: 'done', stage: 'DONE', verdict: 'ACCEPT', created_at: '2026-01-01T00:00:00.000Z', finished_at: null },
    ];
    api = await startFakeApi((_req, res) => sendJson(res, 200, list));
    const plain = captureIo();
    expect(await runCli(['runs', '--status', 'halted', '--limit', '5', '--api', api.url], plain.io)).toBe(0);
    expect(api.requests[0].url).toBe('/v1/runs?status=halted&limit=5');
    expect(plain.stdout()).toBe('run_b\thalted\tDONE\t-\tdd-demo\t2026-01-02T00:00:00.000Z\nrun_a\tdone\tDONE\tACCEPT\tdd-demo\t2026-01-01T00:00:00.000Z\n');

    const tty = captureIo({ tty: true, env: { NO_COLOR: '1' } });
    await runCli(['runs', '--api', api.url], tty.io);
    expect(tty.stdout().split('\n').slice(0, 3)).toEqual([
      'RUN    STATUS  STAGE  VERDICT  PROJECT  CREATED',
      'run_b  halted  DONE   -        dd-demo  2026-01-02T00:00:00.000Z',
      'run_a  done    DONE   ACCEPT   dd-demo  2026-01-01T00:00:00.000Z',
    ]);

    const json = captureIo({ tty: true });
    await runCli(['runs', '--json', '--api', api.url], json.io);
    expect(JSON.parse(json.stdout())).toEqual(list);
  });

  it('show prints the run with usage against caps; calls passes its filters; call-show finds the run from the call id', async () => {
    api = await startFakeApi((req, res) => {
      if (req.url.startsWith(`/v1/runs/${DEMO_RUN}/calls/`)) {
        return sendJson(res, 200, {
          id: `${DEMO_RUN}-c2`,
          run_id: DEMO_RUN,
          stage: 'CRITIQUE',
          role: 'critic',
          provider: 'xai',
          model: 'grok-4',
          label: 'C1',
          attempt: 1,
          status: 'completed',
          valid: true,
          latency_ms: 4100,
          input_tokens: 1104,
          output_tokens: 388,
          cost_usd: 0.01,
          schema_name: 'Critique',
          messages: [
            { role: 'system', content: 'You are the critic.' },
            { role: 'user', content: 'Review P1.' },
          ],
          parsed: { verdict: 'ACCEPT' },
          context_refs: ['P1'],
        });
      }
      if (req.url.startsWith(`/v1/runs/${DEMO_RUN}/calls`)) return sendJson(res, 200, []);
      sendJson(res, 200, runDetail({ status: 'done', stage: 'DONE', verdict: 'ACCEPT', confidence: 0.82 }));
    });
    const show = captureIo();
    expect(await runCli(['show', DEMO_RUN, '--api', api.url], show.io)).toBe(0);
    expect(show.stdout()).toContain('status:      done\n');
    expect(show.stdout()).toContain('verdict:     ACCEPT (confidence 0.82)\n');
    expect(show.stdout()).toContain('usage:       calls 8/12, tokens 20,461/200,000 (in 15,000, out 5,461), cost $0.10/$5.00, time 49s/900s\n');
    expect(show.stdout()).toContain('  anthropic: 3 calls, 7,600 tokens, $0.04\n');

    const calls = captureIo();
    expect(await runCli(['calls', DEMO_RUN, '--role', 'Critic', '--stage', 'critique', '--failed', '--api', api.url], calls.io)).toBe(0);
    expect(api.requests.at(-1)?.url).toBe(`/v1/runs/${DEMO_RUN}/calls?role=critic&stage=CRITIQUE&failed=true`);
    expect(calls.stdout()).toBe('');

    const one = captureIo();
    expect(await runCli(['call-show', `${DEMO_RUN}-c2`, '--api', api.url], one.io)).toBe(0);
    expect(api.requests.at(-1)?.url).toBe(`/v1/runs/${DEMO_RUN}/calls/${DEMO_RUN}-c2`);
    expect(one.stdout()).toContain('[CRITIQUE] critic xai/grok-4 label=C1 attempt=1\nok 4.1s in=1104 out=388 $0.01 schema=Critique\ncontext: P1\n');
    expect(one.stdout()).toContain('\n--- system\nYou are the critic.\n\n--- user\nReview P1.\n\n--- reply (parsed)\n{\n  "verdict": "ACCEPT"\n}\n');
  });

  it('report prints the markdown or writes it with --out; resume and cancel post to their routes', async () => {
    api = await startFakeApi((req, res) => {
      if (req.url.endsWith('/report')) {
        res.writeHead(200, { 'content-type': 'text/markdown' });
        return res.end('# dd-demo — run x\n\nOverall verdict: ACCEPT\n');
      }
      if (req.url.endsWith('/resume') && req.url.includes('run_done')) {
        return sendJson(res, 409, { error: 'run_not_halted', message: 'run run_done is done; only a halted run can be resumed' });
      }
      sendJson(res, 202, { id: 'run_h', status: 'running', links: {} });
    });
    const report = captureIo({ cwd: dir });
    expect(await runCli(['report', 'run_x', '--api', api.url], report.io)).toBe(0);
    expect(report.stdout()).toBe('# dd-demo — run x\n\nOverall verdict: ACCEPT\n');
    const toFile = captureIo({ cwd: dir });
    expect(await runCli(['report', 'run_x', '--out', 'r.md', '--api', api.url], toFile.io)).toBe(0);
    expect(readFileSync(path.join(dir, 'r.md'), 'utf8')).toContain('Overall verdict: ACCEPT');
    expect(toFile.stdout()).toBe('');

    const resume = captureIo();
    expect(await runCli(['resume', 'run_h', '--from', 'critique', '--max-calls', '20', '--max-cost-usd', '2.5', '--api', api.url], resume.io)).toBe(0);
    const post = api.requests.at(-1)!;
    expect([post.method, post.url, JSON.parse(post.body)]).toEqual(['POST', '/v1/runs/run_h/resume', { from: 'CRITIQUE', caps: { max_calls: 20, max_cost_usd: 2.5 } }]);
    expect(resume.stdout()).toContain('run run_h resumed (from CRITIQUE, caps max_calls=20 max_cost_usd=2.5)\n');

    const refused = captureIo();
    expect(await runCli(['resume', 'run_done', '--api', api.url], refused.io)).toBe(1);
    expect(refused.stderr()).toBe('POST /v1/runs/run_done/resume: HTTP 409 run_not_halted: run run_done is done; only a halted run can be resumed\n');

    const cancel = captureIo();
    expect(await runCli(['cancel', 'run_h', '--json', '--api', api.url], cancel.io)).toBe(0);
    expect(api.requests.at(-1)?.url).toBe('/v1/runs/run_h/cancel');
    expect(JSON.parse(cancel.stdout())).toEqual({ id: 'run_h', status: 'running', links: {} });
  });

  it('--help documents the commands and exit codes; usage errors exit 1 and point at help', async () => {
    const help = captureIo();
    expect(await runCli(['--help'], help.io)).toBe(0);
    // The summaries line up after the longest command name (experiment).
    expect(help.stdout()).toMatch(/^ {2}call-show {3}one agent call/m);
    expect(help.stdout()).toMatch(/^ {2}experiment {2}preregistered experiments/m);
    expect(help.stdout()).toMatch(/^ {2}2 {4}a followed run ended halted/m);
    expect(help.stdout()).toContain('ROUNDTABLE_TOKEN');

    const appealHelp = captureIo();
    expect(await runCli(['appeal', '--help'], appealHelp.io)).toBe(0);
    expect(appealHelp.stdout()).not.toMatch(/moderator answers again/);
    expect(appealHelp.stdout()).toContain('the moderator is not');

    const cmdHelp = captureIo();
    expect(await runCli(['call-show', '--help'], cmdHelp.io)).toBe(0);
    expect(cmdHelp.stdout()).toContain('call ids are <run id>-c<n>');

    const bad = captureIo();
    expect(await runCli(['calls', 'r', '--rol', 'x'], bad.io)).toBe(1);
    expect(bad.stderr()).toBe("roundtable: unknown option '--rol'\nsee: roundtable calls --help\n");

    const bare = captureIo();
    expect(await runCli([], bare.io)).toBe(1);
    expect(bare.stdout()).toContain('Usage: roundtable <command>');
  });
});
