import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { dockerEndpoint } from './docker-client';
import { DockerTestRunner, SANDBOX_CONTAINER_ENV } from './docker-runner';
import { formatOwner } from './container-labels';
import { reapOrphans } from './orphan-reaper';
import { SandboxRefusedError } from './sandbox-refused.error';
import { SandboxUnavailableError } from './sandbox-unavailable.error';
import { writeFileChanges } from './safe-write';
import { prepareEmptyWorkspace } from './workspace';

/**
 * Real Docker, real image (scripts/build-sandbox-image.sh; cached, so only the first run on a
 * machine pays for debootstrap). Nothing here sends traffic anywhere: with NetworkMode none a
 * connect fails inside the container before any packet exists.
 */
const REPO = path.resolve(__dirname, '../../..');
const IMAGE = process.env.SANDBOX_IMAGE ?? 'roundtable/sandbox:latest';
const endpoint = dockerEndpoint(process.env.DOCKER_HOST);
const docker = endpoint.client;

jest.setTimeout(120_000);

const runId = () => `int-${randomBytes(6).toString('hex')}`;

async function containersOfRun(id: string): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`roundtable.run=${id}`] } });
  return list.map((c) => c.Id);
}

beforeAll(() => {
  // Idempotent: a no-op in well under a second when the image is current.
  execFileSync('bash', [path.join(REPO, 'scripts/build-sandbox-image.sh')], {
    env: { ...process.env, SANDBOX_IMAGE: IMAGE },
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 15 * 60_000,
  });
}, 15 * 60_000);

describe('DockerTestRunner (real Docker)', () => {
  const runner = new DockerTestRunner({ endpoint, image: IMAGE, limits: { memoryMb: 256, pids: 64, cpus: 1 } });
  let root: string;
  let ws: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rt-docker-run-'));
    ws = await prepareEmptyWorkspace(root, 'run1');
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('the demo', () => {
    type EngineerReply = { role: string; reply: { files: { path: string; content: string }[] } };
    const engineerReplies = () => {
      const cassette = parseYaml(readFileSync(path.join(REPO, 'examples/dd-demo/cassette.yaml'), 'utf8'));
      return (cassette.replies as EngineerReply[]).filter((r) => r.role === 'engineer').map((r) => r.reply.files);
    };

    it("runs the dd-demo's pytest in the container: I1 fails one test, the fix I1f1 passes all", async () => {
      const [i1, i1f1] = engineerReplies();
      await writeFileChanges(ws, i1);
      const first = await runner.run({ workspace: ws, command: 'python -m pytest -q', timeoutMs: 60_000, runId: runId() });
      expect(first).toMatchObject({ exit_code: 1, passed: 6, failed: 1, errors: 0, timed_out: false, oom_killed: false });
      expect(first.stdout_tail).toContain('test_ends_at_trough');

      await writeFileChanges(ws, i1f1);
      const second = await runner.run({ workspace: ws, command: 'python -m pytest -q', timeoutMs: 60_000, runId: runId() });
      expect(second).toMatchObject({ exit_code: 0, passed: 7, failed: 0, errors: 0, timed_out: false });
      expect(second.stdout_tail).toMatch(/7 passed/);
      expect(await readdir(ws)).not.toContain('__pycache__');
    });
  });

  it('runs node --test and reads its counts', async () => {
    await writeFile(
      path.join(ws, 'calc.test.js'),
      "const test = require('node:test'); const assert = require('node:assert');\n" +
        "test('adds', () => assert.equal(1 + 1, 2));\ntest('breaks', () => assert.equal(1, 2));\n",
    );
    const res = await runner.run({ workspace: ws, command: 'node --test', timeoutMs: 60_000 });
    expect(res).toMatchObject({ passed: 1, failed: 1, errors: 0, timed_out: false });
    expect(res.exit_code).not.toBe(0);
  });

  it('blocks the network: no interface but loopback, no route, no name resolution', async () => {
    // Judged from the interfaces and the routing table, never by sending a packet off this
    // machine (scripts/sandbox-probe.sh does the same, at more length).
    const probe = [
      'import os, socket',
      "print('IFACES=' + ','.join(sorted(os.listdir('/sys/class/net'))))",
      "print('ROUTES=' + str(len(open('/proc/net/route').read().strip().splitlines()) - 1))",
      "try:\n    socket.getaddrinfo('deb.debian.org', 80); print('DNS-OK')\nexcept OSError as e:\n    print('DNS-FAILED', e)",
    ].join('\n');
    await writeFile(path.join(ws, 'probe.py'), probe);
    const res = await runner.run({ workspace: ws, command: 'python probe.py', timeoutMs: 30_000 });
    expect(res.exit_code).toBe(0);
    expect(res.output).toContain('IFACES=lo\n');
    expect(res.output).toContain('ROUTES=0\n');
    expect(res.output).toContain('DNS-FAILED');
  });

  it('lets the tests write the workspace and /tmp, and nothing else', async () => {
    const targets = ['/etc/x', '/usr/x', '/x', '/var/tmp/x', '/home/x', '/root/x', '/workspace/inside.txt', '/tmp/scratch'];
    const script = targets
      .map((t) => `if echo hi > ${t} 2>/dev/null; then echo "WROTE ${t}"; else echo "REFUSED ${t}"; fi`)
      .join('\n');
    const res = await runner.run({ workspace: ws, command: script, timeoutMs: 30_000 });
    for (const t of targets.slice(0, 6)) expect(res.output).toContain(`REFUSED ${t}`);
    expect(res.output).toContain('WROTE /workspace/inside.txt');
    expect(res.output).toContain('WROTE /tmp/scratch');
    expect(await readFile(path.join(ws, 'inside.txt'), 'utf8')).toBe('hi\n');
  });

  it('runs as uid 10001 with no capabilities and no way to gain privileges', async () => {
    const res = await runner.run({
      workspace: ws,
      command: "id -u; id -g; grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status",
      timeoutMs: 30_000,
    });
    expect(res.output).toMatch(/^10001\n10001\n/);
    expect(res.output).toMatch(/CapPrm:\s+0000000000000000/);
    expect(res.output).toMatch(/CapEff:\s+0000000000000000/);
    expect(res.output).toMatch(/NoNewPrivs:\s+1/);
  });

  it('contains a fork bomb with the pids limit; the run ends and leaves no container', async () => {
    // A bounded bomb first: it reports how many forks the limit allowed.
    const counter = [
      'import os, time',
      'n = 0',
      'try:',
      '    for _ in range(10000):',
      '        if os.fork() == 0:',
      '            time.sleep(60); os._exit(0)',
      '        n += 1',
      'except OSError as e:',
      "    print('FORK-REFUSED', e.errno)",
      "print('FORKED', n)",
    ].join('\n');
    await writeFile(path.join(ws, 'forks.py'), counter);
    const bounded = await runner.run({ workspace: ws, command: 'python forks.py', timeoutMs: 30_000 });
    expect(bounded.output).toContain('FORK-REFUSED 11'); // EAGAIN
    const forked = Number(/FORKED (\d+)/.exec(bounded.output)?.[1]);
    expect(forked).toBeGreaterThan(0);
    expect(forked).toBeLessThan(64);

    // The classic shell bomb never ends by itself: the wall clock ends it. The container's first process
    // (the shell, then `sleep` by exec) forks once, for the bomb, while it is the only process, and never
    // again: were it to fork once the bomb had taken every pid (as in `bomb | bomb &` run by itself, whose
    // second fork raced the first's children), the fork would be refused, the shell would exit, and the
    // container with it, before the timeout (under load, now and then).
    const id = runId();
    const started = Date.now();
    const bomb = await runner.run({ workspace: ws, command: 'bomb() { bomb | bomb & }; bomb & exec sleep 60', timeoutMs: 4000, runId: id });
    expect(bomb.timed_out).toBe(true);
    // It did run, and the pids limit refused its forks (dash's words).
    expect(bomb.output).toContain('Cannot fork');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await containersOfRun(id)).toEqual([]);
  });

  it('reports a memory hog as OOM-killed', async () => {
    await writeFile(path.join(ws, 'hog.py'), "chunks = []\nwhile True:\n    chunks.append(b'x' * (16 * 1024 * 1024))\n");
    const small = new DockerTestRunner({ endpoint, image: IMAGE, limits: { memoryMb: 96, tmpfsMb: 16 } });
    const res = await small.run({ workspace: ws, command: 'python hog.py', timeoutMs: 60_000 });
    expect(res.oom_killed).toBe(true);
    expect(res.exit_code).toBe(137);
    expect(res.timed_out).toBe(false);
    expect(res.stdout_tail).toMatch(/\[sandbox\] out of memory: .* at the 96 MiB limit/);
  });

  it('kills an infinite loop at the timeout and removes the container', async () => {
    const id = runId();
    const started = Date.now();
    const res = await runner.run({ workspace: ws, command: 'while :; do :; done', timeoutMs: 1500, runId: id });
    const elapsed = Date.now() - started;
    expect(res).toMatchObject({ timed_out: true, exit_code: 124, oom_killed: false });
    expect(res.duration_s).toBeGreaterThanOrEqual(1.5);
    expect(elapsed).toBeLessThan(15_000);
    expect(res.stdout_tail).toMatch(/\[sandbox\] timed out/);
    expect(await containersOfRun(id)).toEqual([]);
  });

  it('removes the container after a normal run too', async () => {
    const id = runId();
    const res = await runner.run({ workspace: ws, command: 'echo done', timeoutMs: 30_000, runId: id });
    expect(res.output).toBe('done\n');
    expect(await containersOfRun(id)).toEqual([]);
  });

  it("does not let an *_API_KEY from the runner's own environment into the container", async () => {
    const saved = process.env.ROUNDTABLE_INT_API_KEY;
    process.env.ROUNDTABLE_INT_API_KEY = 'sk-int-must-not-leak';
    try {
      const res = await runner.run({ workspace: ws, command: "env; tr '\\0' '\\n' < /proc/1/environ", timeoutMs: 30_000 });
      expect(res.exit_code).toBe(0);
      // The command ran and printed the environment (an empty output would pass the checks below):
      // both listings, env's and PID 1's, show every variable the runner sets.
      const lines = res.output.split('\n');
      for (const e of SANDBOX_CONTAINER_ENV) expect({ e, times: lines.filter((l) => l === e).length }).toEqual({ e, times: 2 });
      expect(res.output).not.toContain('sk-int-must-not-leak');
      expect(res.output).not.toContain('API_KEY');
      const names = new Set(lines.filter((l) => l.includes('=')).map((l) => l.split('=')[0]));
      expect(names.size).toBeGreaterThanOrEqual(SANDBOX_CONTAINER_ENV.length);
      // Ours, plus what the shell itself sets.
      const allowed = new Set([...SANDBOX_CONTAINER_ENV.map((e) => e.split('=')[0]), 'HOSTNAME', 'PWD', 'SHLVL', 'OLDPWD']);
      expect([...names].filter((n) => !allowed.has(n))).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.ROUNDTABLE_INT_API_KEY;
      else process.env.ROUNDTABLE_INT_API_KEY = saved;
    }
  });

  it('demultiplexes stdout and stderr into one output and passes the exit code through', async () => {
    const res = await runner.run({ workspace: ws, command: 'echo out; echo err >&2; exit 3', timeoutMs: 30_000 });
    expect(res).toMatchObject({ exit_code: 3, passed: 0, failed: 0, errors: 0, timed_out: false });
    expect(res.output).toContain('out\n');
    expect(res.output).toContain('err\n');
    // No 8-byte frame headers leaked into the text.
    expect(res.output).not.toMatch(/[\u0001\u0002]\u0000\u0000\u0000/);
  });

  it('caps a flood of output at 1 MiB while keeping the end', async () => {
    const command = `python -c "import sys; sys.stdout.write('x' * 3_000_000); print(); print('THE-END')"`;
    const res = await runner.run({ workspace: ws, command, timeoutMs: 60_000 });
    expect(res.exit_code).toBe(0);
    expect(Buffer.byteLength(res.output)).toBeLessThanOrEqual(1024 * 1024);
    expect(res.output).toMatch(/bytes of output elided/);
    expect(res.stdout_tail.trim().endsWith('THE-END')).toBe(true);
  });

  it('never follows a symlink out of the workspace when opening it to the sandbox user', async () => {
    const outside = path.join(root, 'host-secret');
    await writeFile(outside, 'secret');
    await chmod(outside, 0o600);
    await symlink(outside, path.join(ws, 'link'));
    const before = await stat(outside);
    const res = await runner.run({ workspace: ws, command: 'cat link || echo UNREADABLE', timeoutMs: 30_000 });
    expect(res.output).not.toContain('secret');
    const after = await stat(outside);
    expect(after.mode).toBe(before.mode);
    expect(after.gid).toBe(before.gid);
  });

  it('rejects a non-positive timeout instead of running unbounded', async () => {
    await expect(runner.run({ workspace: ws, command: 'true', timeoutMs: 0 })).rejects.toThrow(RangeError);
  });

  it('clears the setuid and setgid bits of the files a run leaves, without following links', async () => {
    const outside = path.join(root, 'host-setuid');
    await writeFile(outside, '#!/bin/sh\n');
    await chmod(outside, 0o6755);
    await symlink(outside, path.join(ws, 'link-out'));
    const res = await runner.run({
      workspace: ws,
      command: "printf '#!/bin/sh\\nid\\n' > suid.sh && chmod 755 suid.sh && chmod u+s,g+s suid.sh && stat -c 'INSIDE %A' suid.sh",
      timeoutMs: 30_000,
    });
    expect(res.output).toContain('INSIDE -rwsr-sr-x'); // the bits were set in the sandbox …
    const st = await stat(path.join(ws, 'suid.sh'));
    expect(st.mode & 0o7777).toBe(0o755); // … and are gone on the host
    expect(res.output).toContain('[sandbox] cleared the setuid/setgid bits of 1 file(s) the tests left: suid.sh');
    expect((await stat(outside)).mode & 0o7777).toBe(0o6755); // the link's target is not ours
  });
});

describe('when the engine refuses the container', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rt-docker-refused-'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('more CPUs than the engine has is a SandboxRefusedError with the engine words, and leaves no container', async () => {
    const { NCPU } = (await docker.info()) as { NCPU: number };
    const runner = new DockerTestRunner({ endpoint, image: IMAGE, limits: { cpus: NCPU + 2 } });
    const id = runId();
    const err = await runner.run({ workspace: root, command: 'true', timeoutMs: 5000, runId: id }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxRefusedError);
    const refused = err as SandboxRefusedError;
    expect(refused.statusCode).toBe(400);
    expect(refused.step).toBe('create');
    // Docker's own sentence, e.g. "Range of CPUs is from 0.01 to 2.00, as there are only 2 CPUs available".
    expect(refused.engineMessage).toMatch(new RegExp(`only ${NCPU} CPUs available`));
    expect(refused.message).toBe(`the Docker engine refused to create the sandbox container (HTTP 400): ${refused.engineMessage}`);
    expect(await containersOfRun(id)).toEqual([]);
  });

  it('asks the engine for the operator\'s runtime (sandbox.runtime): one it lacks is refused in its words', async () => {
    // gVisor's runsc is not on this engine; asking for a runtime it lacks shows the request reaches it.
    const runner = new DockerTestRunner({ endpoint, image: IMAGE, runtime: 'runsc-not-installed' });
    const id = runId();
    const err = await runner.run({ workspace: root, command: 'true', timeoutMs: 5000, runId: id }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxRefusedError);
    expect((err as SandboxRefusedError).engineMessage).toMatch(/runsc-not-installed/);
    expect(await containersOfRun(id)).toEqual([]);
  });
});

describe('when the sandbox cannot run', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rt-docker-none-'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('an unreachable engine is a SandboxUnavailableError naming the address and the way out', async () => {
    const runner = new DockerTestRunner({ endpoint: dockerEndpoint(`unix://${root}/no-docker.sock`), image: IMAGE });
    const err = await runner.run({ workspace: root, command: 'true', timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toBe(
      `Docker engine unreachable at unix://${root}/no-docker.sock (ENOENT): start it (scripts/ensure-docker.sh) or set sandbox.runner: process to run without a sandbox`,
    );
    expect(await runner.ping()).toEqual({ ok: false, error: (err as Error).message });
  });

  it('a missing image is a SandboxUnavailableError saying how to build it (never a pull)', async () => {
    const runner = new DockerTestRunner({ endpoint, image: `roundtable/does-not-exist:${randomBytes(4).toString('hex')}` });
    const err = await runner.run({ workspace: root, command: 'true', timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toMatch(/is not on the Docker engine .*scripts\/build-sandbox-image\.sh/);
  });
});

describe('reapOrphans (real Docker)', () => {
  const created: string[] = [];
  const self = { host: 'reaper-test-host', pid: process.pid, instance: 'current' };

  async function labelled(owner: string, deadline: number): Promise<string> {
    const c = await docker.createContainer({
      Image: IMAGE,
      Cmd: ['sleep', '300'],
      Labels: { 'roundtable.sandbox': '1', 'roundtable.run': 'reaper-test', 'roundtable.owner': owner, 'roundtable.deadline': String(deadline) },
      HostConfig: { NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], LogConfig: { Type: 'none', Config: {} } },
    });
    created.push(c.id);
    await c.start();
    return c.id;
  }

  afterAll(async () => {
    await Promise.all(created.map((id) => docker.getContainer(id).remove({ force: true }).catch(() => undefined)));
  });

  it('removes containers of an earlier process and past their deadline, and keeps a live one', async () => {
    const future = Date.now() + 10 * 60_000;
    const previousProcess = await labelled(formatOwner({ ...self, instance: 'earlier' }), future);
    const deadProcess = await labelled(formatOwner({ ...self, pid: 999_999, instance: 'gone' }), future);
    const expired = await labelled(formatOwner(self), Date.now() - 1000);
    const live = await labelled(formatOwner(self), future);
    const otherLiveRunner = await labelled(formatOwner({ ...self, pid: 1, instance: 'another' }), future);

    const removed = await reapOrphans(endpoint, { self, isAlive: (pid) => pid !== 999_999 });
    expect(removed).toEqual(expect.arrayContaining([previousProcess, deadProcess, expired]));
    expect(removed).not.toContain(live);
    expect(removed).not.toContain(otherLiveRunner);

    const remaining = (await docker.listContainers({ all: true, filters: { label: ['roundtable.run=reaper-test'] } })).map((c) => c.Id);
    expect(remaining.sort()).toEqual([live, otherLiveRunner].sort());
  });
});
