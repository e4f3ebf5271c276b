import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { Pipeline, startPipeline, startTcpProxy, waitFor } from '@roundtable/testing';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist/apps/cli/main.js');
const DEMO = 'examples/dd-demo/project.yaml';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built CLI as a user runs it: its own process, output to pipes (so: no TTY, no colour). */
function cli(args: string[], timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
    execFile(process.execPath, [CLI, ...args], { cwd: REPO, env, timeout: timeoutMs, maxBuffer: 10 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The demo project with `overrides` merged one level deep, written where the CLI will read it. */
function demoVariant(dir: string, overrides: Record<string, Record<string, unknown>>): string {
  const cfg = parseYaml(readFileSync(path.join(REPO, DEMO), 'utf8')) as Record<string, Record<string, unknown>>;
  for (const [k, v] of Object.entries(overrides)) cfg[k] = { ...cfg[k], ...v };
  const file = path.join(dir, 'project.yaml');
  writeFileSync(file, toYaml(cfg));
  return file;
}

const CALL_LINE = /^\[([A-Z]+)\] (proposer|critic|reviser|engineer|validator|synthesizer) replay\/\S+ \d+\.\ds in=\d+ out=\d+ (\$\d+\.\d+|cost=n\/a)$/;

describe('the roundtable CLI against real services (separate processes)', () => {
  let pipeline: Pipeline;
  let runId: string;
  let follow: CliResult;

  beforeAll(async () => {
    // The CLI is tested as shipped: the bundle, not the sources.
    execFileSync(process.execPath, ['tools/build.mjs'], { cwd: REPO, stdio: 'pipe' });
    pipeline = await startPipeline({ providerQueues: 'replay' });
    follow = await cli(['run', DEMO, '--follow', '--api', pipeline.api]);
    runId = /^\[run (\S+)\]/.exec(follow.stdout)?.[1] ?? '';
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  it('run --follow renders the demo over SSE: one line per agent call, then the verdict and the report hint, exit 0', () => {
    const context = `stdout:\n${follow.stdout}\nstderr:\n${follow.stderr}\n${follow.code === 0 ? '' : pipeline.logs()}`;
    expect({ code: follow.code, context }).toEqual({ code: 0, context });
    expect(runId).toMatch(/^run_/);
    // Followed over the event stream, not the polling fallback.
    expect(follow.stderr).not.toMatch(/polling/);
    // Plain output to a pipe: no colour codes, no in-place redraws.
    expect(follow.stdout).not.toMatch(/\x1b\[/);

    const lines = follow.stdout.trimEnd().split('\n');
    const calls = lines.map((l, i) => ({ m: CALL_LINE.exec(l), i })).filter((x) => x.m);
    expect(calls.map((c) => `${c.m![1]} ${c.m![2]}`)).toEqual([
      'PROPOSE proposer',
      'CRITIQUE critic',
      'REVISE reviser',
      'CRITIQUE critic',
      'IMPLEMENT engineer',
      'FIX engineer',
      'REVIEW validator',
      'SYNTHESIZE synthesizer',
    ]);
    // Each call line is followed by its one-line gist.
    expect(calls.map((c) => lines[c.i + 1])).toEqual([
      expect.stringMatching(/^ {2}P1: \S/),
      expect.stringMatching(/^ {2}C1 REVISE \(\d+ problems\)$/),
      expect.stringMatching(/^ {2}P2: \S/),
      expect.stringMatching(/^ {2}C2 ACCEPT \(\d+ problems\)$/),
      expect.stringMatching(/^ {2}I1 files: .*\.py/),
      expect.stringMatching(/^ {2}I1f1 files: .*\.py/),
      expect.stringMatching(/^ {2}R1 ACCEPT \(\d+\/\d+ checks satisfied\)$/),
      expect.stringMatching(/^ {2}S1 overall ACCEPT$/),
    ]);
    // Stage changes, the two test runs (the first fails, the fix passes) and budget progress lines.
    expect(lines).toContain('-> CRITIQUE: P1 valid');
    const tests = lines.filter((l) => l.startsWith('[TEST] '));
    expect(tests).toEqual([expect.stringMatching(/^\[TEST\] T1 python -m pytest -q exit=[1-9]\d* passed=\d+ failed=[1-9]/), expect.stringMatching(/^\[TEST\] T2 python -m pytest -q exit=0 passed=\d+ failed=0$/)]);
    expect(lines.filter((l) => /^ {2}budget: calls \d+\/16, tokens [\d,]+\/200,000, cost /.test(l)).length).toBeGreaterThanOrEqual(5);
    // It ends with the verdict and where to read the report.
    expect(lines.at(-2)).toMatch(/^\[DONE\] 8 calls, [\d,]+ tokens, (\$\d+\.\d+|cost n\/a), \d+s\. verdict: ACCEPT \(confidence \d\.\d\d\)$/);
    expect(lines.at(-1)).toBe(`report: roundtable report ${runId} --api ${pipeline.api}`);
  });

  it('runs --json, show --json and calls --json parse as JSON with the run, its usage and its calls', async () => {
    const runs = await cli(['runs', '--json', '--api', pipeline.api]);
    expect(runs.code).toBe(0);
    expect(JSON.parse(runs.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ id: runId, status: 'done', verdict: 'ACCEPT', project: 'dd-demo' })]));

    const show = await cli(['show', runId, '--json', '--api', pipeline.api]);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({
      id: runId,
      status: 'done',
      stage: 'DONE',
      verdict: 'ACCEPT',
      fix_round: 1,
      halt_reason: null,
      usage: { calls: 8, failed_calls: 0 },
      caps: { max_calls: 16, max_tokens: 200000 },
    });

    const calls = await cli(['calls', runId, '--json', '--api', pipeline.api]);
    expect(calls.code).toBe(0);
    const rows = JSON.parse(calls.stdout) as { id: string; role: string; label: string; input_tokens: number; status: string }[];
    expect(rows.map((c) => `${c.role}:${c.label}`)).toEqual([
      'proposer:P1',
      'critic:C1',
      'reviser:P2',
      'critic:C2',
      'engineer:I1',
      'engineer:I1f1',
      'validator:R1',
      'synthesizer:S1',
    ]);
    expect(rows.every((c) => c.status === 'completed' && c.input_tokens > 0)).toBe(true);

    const critics = await cli(['calls', runId, '--role', 'critic', '--json', '--api', pipeline.api]);
    expect((JSON.parse(critics.stdout) as { label: string }[]).map((c) => c.label)).toEqual(['C1', 'C2']);

    // call-show finds the run from the call id itself (<run id>-c<n>).
    const one = await cli(['call-show', rows[1].id, '--json', '--api', pipeline.api]);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ id: rows[1].id, run_id: runId, role: 'critic', messages: expect.any(Array) });
  });

  it('report prints the markdown report; events --json replays every event once, in order, ending at the terminal one', async () => {
    const report = await cli(['report', runId, '--api', pipeline.api]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/^# /);
    expect(report.stdout).toContain('ACCEPT');

    const events = await cli(['events', runId, '--json', '--api', pipeline.api]);
    expect(events.code).toBe(0);
    const envelopes = events.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { sequence: number; type: string; run_id: string });
    expect(envelopes.map((e) => e.sequence)).toEqual(envelopes.map((_, i) => i + 1));
    expect(envelopes.every((e) => e.run_id === runId)).toBe(true);
    expect(envelopes.at(-1)?.type).toBe('run_completed');
    expect(envelopes.filter((e) => e.type === 'agent_call_completed')).toHaveLength(8);
  });

  it('a project the API refuses prints every issue as `path: message` and exits 1', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-e2e-'));
    try {
      const bad = path.join(dir, 'bad.yaml');
      writeFileSync(bad, 'project: bad\nautonomy: 9\nproviders: {}\nagents: {}\n');
      const res = await cli(['run', bad, '--api', pipeline.api]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^the API refused the request \(HTTP 400 invalid_project_config\)/);
      expect(res.stderr).toMatch(/^ {2}objective: /m);
      expect(res.stderr).toMatch(/^ {2}autonomy: /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a run halted by its budget exits 2 and says how to resume it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rt-cli-e2e-'));
    try {
      const file = demoVariant(dir, {
        budget: { max_calls: 4 },
        providers: { replay: { type: 'replay', cassette: path.join(REPO, 'test/fixtures/budget-halt/cassette.yaml') } },
      });
      const res = await cli(['run', file, '--follow', '--api', pipeline.api]);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 2, stderr: '' });
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines).toContainEqual(expect.stringMatching(/^\[HALTED\] max_calls reached: 4 of 4 calls/));
      expect(lines.filter((l) => CALL_LINE.test(l))).toHaveLength(5);
      expect(lines.at(-3)).toMatch(/^\[HALTED\] 5 calls \(the closing call, allowed past the cap\), [\d,]+ tokens, .*verdict: NEEDS_EXPERIMENT \(confidence \d\.\d\d\)$/);
      expect(lines.at(-1)).toMatch(new RegExp(`^resume: roundtable resume run_\\w+ --api ${pipeline.api} \\[--max-calls N …\\]$`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cancel stops a followed run between steps: the follower exits 3', async () => {
    const child = spawn(process.execPath, [CLI, 'run', DEMO, '--follow', '--api', pipeline.api], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // The tests of I1 take seconds to run: a window in which the run is between agent steps.
      await waitFor('the followed run to reach TEST', async () => (/^-> TEST:/m.test(out) ? true : undefined), 60_000, 50);
      const id = /^\[run (\S+)\]/.exec(out)![1];
      const cancel = await cli(['cancel', id, '--api', pipeline.api]);
      expect({ code: cancel.code, stdout: cancel.stdout }).toEqual({ code: 0, stdout: expect.stringContaining(`cancel requested for run ${id}`) });
      expect(await exited).toBe(3);
      expect(out).toMatch(/^\[CANCELLED\] /m);
      const show = await cli(['show', id, '--json', '--api', pipeline.api]);
      expect(JSON.parse(show.stdout)).toMatchObject({ id, status: 'cancelled' });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('run --follow survives a dropped connection: it reconnects with Last-Event-ID and prints every call once', async () => {
    const proxy = await startTcpProxy(Number(new URL(pipeline.api).port));
    const child = spawn(process.execPath, [CLI, 'run', DEMO, '--follow', '--api', proxy.url], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor('the followed run to reach TEST', async () => (/^-> TEST:/m.test(stdout) ? true : undefined), 60_000, 20);
      proxy.cut();
      expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^event stream dropped \(.*\); reconnecting \(attempt 1\)\n$/) });
      const resumed = proxy.requests.filter((r) => /^GET \/v1\/runs\/\S+\/events /.test(r));
      expect(resumed).toHaveLength(2);
      expect(resumed[1]).toMatch(/^last-event-id: \d+$/im);
      const lines = stdout.trimEnd().split('\n');
      expect(lines.filter((l) => CALL_LINE.test(l))).toHaveLength(8);
      expect(lines.filter((l) => l.startsWith('[TEST] '))).toHaveLength(2);
      expect(lines.at(-2)).toMatch(/^\[DONE\] 8 calls, .*verdict: ACCEPT/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await proxy.close();
    }
  });
});
