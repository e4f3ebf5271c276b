import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ProcessTestRunner } from './process-runner';
import { writeFileChanges } from './safe-write';
import { prepareEmptyWorkspace } from './workspace';

// pytest start-up here is ~3 s; the default 5 s jest timeout would make these flaky under load.
jest.setTimeout(60_000);

const PYTEST = 'python -m pytest -q';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A killed grandchild is reparented to init, which reaps it on its own schedule. */
async function waitUntilGone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

describe('ProcessTestRunner', () => {
  const runner = new ProcessTestRunner();
  let root: string;
  let ws: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rt-sandbox-run-'));
    ws = await prepareEmptyWorkspace(root, 'run1');
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('is labelled as a plain process runner', () => {
    expect(runner.kind).toBe('process');
  });

  it('reports a passing pytest run', async () => {
    await writeFileChanges(ws, [
      { path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' },
      { path: 'tests/test_calc.py', content: 'from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n' },
      { path: 'conftest.py', content: 'import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n' },
    ]);
    const res = await runner.run({ workspace: ws, command: PYTEST, timeoutMs: 60_000 });
    expect(res).toMatchObject({ command: PYTEST, exit_code: 0, passed: 2, failed: 0, errors: 0, timed_out: false });
    expect(res.stdout_tail).toMatch(/2 passed/);
    expect(res.output).toContain(res.stdout_tail.trim());
    expect(res.duration_s).toBeGreaterThan(0);
    // PYTHONDONTWRITEBYTECODE keeps compiled litter out of the engineer's tree.
    expect(await readdir(ws)).not.toContain('__pycache__');
  });

  it('reports a failing pytest run with the failing test named in the tail', async () => {
    await writeFileChanges(ws, [
      {
        path: 'test_peak.py',
        content: 'def test_ok():\n    assert True\n\ndef test_negative_peak():\n    assert -1 > 0\n',
      },
    ]);
    const res = await runner.run({ workspace: ws, command: PYTEST, timeoutMs: 60_000 });
    expect(res).toMatchObject({ exit_code: 1, passed: 1, failed: 1, errors: 0, timed_out: false });
    expect(res.stdout_tail).toContain('test_negative_peak');
    expect(Buffer.byteLength(res.stdout_tail)).toBeLessThanOrEqual(4096);
  });

  it('kills the whole process group at the timeout', async () => {
    const command = 'echo $$ > shell.pid; sleep 30 & echo $! > sleep.pid; wait';
    const started = Date.now();
    const res = await runner.run({ workspace: ws, command, timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.timed_out).toBe(true);
    expect(res.exit_code).toBe(124);

    const shellPid = Number(await readFile(path.join(ws, 'shell.pid'), 'utf8'));
    const sleepPid = Number(await readFile(path.join(ws, 'sleep.pid'), 'utf8'));
    expect(shellPid).toBeGreaterThan(0);
    expect(sleepPid).toBeGreaterThan(0);
    expect(isAlive(shellPid)).toBe(false);
    expect(await waitUntilGone(sleepPid, 5000)).toBe(true);
  });

  it('kills background processes left behind by a run that exits normally', async () => {
    const started = Date.now();
    const res = await runner.run({ workspace: ws, command: 'sleep 30 & echo $! > bg.pid; echo done', timeoutMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res).toMatchObject({ exit_code: 0, timed_out: false });
    expect(res.output).toContain('done');
    const bgPid = Number(await readFile(path.join(ws, 'bg.pid'), 'utf8'));
    expect(await waitUntilGone(bgPid, 5000)).toBe(true);
  });

  it('does not expose secrets from the parent environment', async () => {
    const secretRunner = new ProcessTestRunner({
      baseEnv: { ...process.env, FOO_API_KEY: 'sk-should-not-leak', GITHUB_TOKEN: 'ghp-should-not-leak' },
      allowEnv: ['GITHUB_TOKEN'],
    });
    const res = await secretRunner.run({ workspace: ws, command: 'env', timeoutMs: 10_000 });
    expect(res.exit_code).toBe(0);
    expect(res.output).toMatch(/^PATH=/m);
    expect(res.output).not.toContain('FOO_API_KEY');
    expect(res.output).not.toContain('should-not-leak');
  });

  it('runs in the workspace with a scratch HOME beside it, not the real one', async () => {
    const res = await runner.run({ workspace: ws, command: 'pwd; echo "HOME=$HOME"', timeoutMs: 10_000 });
    const [pwd, homeLine] = res.output.trim().split('\n');
    expect(pwd).toBe(ws);
    const home = homeLine.replace(/^HOME=/, '');
    expect(path.dirname(home)).toBe(path.dirname(ws));
    expect(home).not.toBe(ws);
    expect(home).not.toBe(process.env.HOME);
  });

  it('passes the exit code through and merges stderr into the output', async () => {
    const res = await runner.run({ workspace: ws, command: 'echo out; echo err >&2; exit 3', timeoutMs: 10_000 });
    expect(res).toMatchObject({ exit_code: 3, passed: 0, failed: 0, errors: 0, timed_out: false });
    expect(res.output).toContain('out');
    expect(res.output).toContain('err');
  });

  it('caps a flood of output at 1 MiB while keeping the end', async () => {
    const command = `python -c "import sys; sys.stdout.write('x' * 3_000_000); print(); print('THE-END')"`;
    const res = await runner.run({ workspace: ws, command, timeoutMs: 30_000 });
    expect(res.exit_code).toBe(0);
    expect(Buffer.byteLength(res.output)).toBeLessThanOrEqual(1024 * 1024);
    expect(res.output).toMatch(/bytes of output elided/);
    expect(res.stdout_tail.trim().endsWith('THE-END')).toBe(true);
  });

  it('rejects a non-positive timeout instead of running unbounded', async () => {
    await expect(runner.run({ workspace: ws, command: 'true', timeoutMs: 0 })).rejects.toThrow(RangeError);
  });

  it('clears the setuid and setgid bits of the files a run leaves, nested ones too', async () => {
    const res = await runner.run({
      workspace: ws,
      command: "mkdir -p bin && touch bin/tool && chmod 755 bin/tool && chmod u+s,g+s bin/tool && stat -c 'INSIDE %A' bin/tool",
      timeoutMs: 30_000,
    });
    expect(res.output).toContain('INSIDE -rwsr-sr-x');
    expect((await stat(path.join(ws, 'bin/tool'))).mode & 0o7777).toBe(0o755);
    expect(res.output).toContain('cleared the setuid/setgid bits of 1 file(s) the tests left: bin/tool');
  });
});
