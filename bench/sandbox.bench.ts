/**
 * `npm run bench:sandbox`: what the Docker sandbox costs per test run. The same tests (the
 * dd-demo's pytest suite, 7 tests) run N times in the sandbox (DockerTestRunner) and N times
 * as a bare subprocess (ProcessTestRunner), alternating, after one warm-up each; then the
 * same for an empty command (`true`), which isolates the container's own cost from the
 * interpreter's. Prints p50 / p99 per runner and the p50 overhead per run. Target (issue 4):
 * under 1 s of overhead per test run. Not a jest test: figures, not assertions; exits 1 only
 * if a run fails or the target is missed.
 *
 * "The same tests" means the same interpreter and pytest too: the image has Debian's python3
 * and python3-pytest, so the bare side uses the host's /usr/bin/python3 when it has pytest
 * (apt-get install python3-pytest). A pyenv or venv pytest with other versions and plugins
 * would measure the difference between two Pythons, not the sandbox.
 *
 * Knobs (env): BENCH_SANDBOX_RUNS (10), BENCH_BARE_PYTHON (/usr/bin/python3 if it has pytest,
 * else python), SANDBOX_IMAGE (roundtable/sandbox:latest), DOCKER_HOST.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DockerTestRunner, ProcessTestRunner, prepareEmptyWorkspace, TestRunner, writeFileChanges } from '@roundtable/sandbox';
import { percentile } from './stats';

// Bundled to dist/bench/, so __dirname is no guide; scripts/bench-sandbox.sh runs from the repository root.
const REPO = process.cwd();
const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 10);
const TARGET_OVERHEAD_MS = 1000;
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`BENCH_SANDBOX_RUNS must be a positive whole number, got "${process.env.BENCH_SANDBOX_RUNS}"`);

interface Case {
  name: string;
  /** In the container, and as a bare subprocess on the host. */
  command: { docker: string; process: string };
  expectPassed: number;
}

function barePython(): string {
  if (process.env.BENCH_BARE_PYTHON) return process.env.BENCH_BARE_PYTHON;
  const debian = spawnSync('/usr/bin/python3', ['-m', 'pytest', '--version'], { stdio: 'ignore' });
  return debian.status === 0 ? '/usr/bin/python3' : 'python';
}

function cases(python: string): Case[] {
  return [
    { name: 'pytest (dd-demo, 7 tests)', command: { docker: 'python -m pytest -q', process: `${python} -m pytest -q` }, expectPassed: 7 },
    { name: 'empty command (true)', command: { docker: 'true', process: 'true' }, expectPassed: 0 },
  ];
}

async function versions(runner: TestRunner, ws: string, python: string): Promise<string> {
  const res = await runner.run({ workspace: ws, command: `${python} -c 'import sys, pytest; print(sys.version.split()[0], "pytest", pytest.__version__)'`, timeoutMs: 60_000 });
  return res.output.trim();
}

/** The demo's final files: the engineer's I1 with its fix I1f1 applied on top. */
function demoFiles(): { path: string; content: string }[] {
  const cassette = parseYaml(readFileSync(path.join(REPO, 'examples/dd-demo/cassette.yaml'), 'utf8'));
  const byPath = new Map<string, string>();
  for (const r of cassette.replies as { role: string; reply: { files: { path: string; content: string }[] } }[]) {
    if (r.role === 'engineer') for (const f of r.reply.files) byPath.set(f.path, f.content);
  }
  return [...byPath].map(([p, content]) => ({ path: p, content }));
}

async function timeRun(runner: DockerTestRunner | ProcessTestRunner, ws: string, c: Case): Promise<number> {
  const command = c.command[runner.kind];
  const started = process.hrtime.bigint();
  const res = await runner.run({ workspace: ws, command, timeoutMs: 120_000, runId: 'bench-sandbox' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.exit_code !== 0 || res.passed !== c.expectPassed) {
    throw new Error(`${runner.kind} run of "${command}" did not pass as expected (exit ${res.exit_code}, ${res.passed} passed):\n${res.stdout_tail}`);
  }
  return ms;
}

const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`;

async function main(): Promise<void> {
  const docker = new DockerTestRunner({ image: process.env.SANDBOX_IMAGE });
  const bare = new ProcessTestRunner();
  const ping = await docker.ping();
  if (!ping.ok) throw new Error(ping.error);

  const root = mkdtempSync(path.join(tmpdir(), 'rt-bench-sandbox-'));
  try {
    const ws = await prepareEmptyWorkspace(root, 'bench');
    await writeFileChanges(ws, demoFiles());
    console.log(`sandbox bench: ${RUNS} runs per runner and case, image ${docker.image}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})`);
    const python = barePython();
    console.log(`limits: ${JSON.stringify(docker.limits)}`);
    console.log(`docker:  python ${await versions(docker, ws, 'python')}`);
    console.log(`process: ${python} ${await versions(bare, ws, python)}\n`);

    let pytestOverhead = Number.NaN;
    const all = cases(python);
    for (const c of all) {
      await timeRun(docker, ws, c); // warm-up: page cache, image layers, pytest's imports
      await timeRun(bare, ws, c);
      const samples: Record<'docker' | 'process', number[]> = { docker: [], process: [] };
      for (let i = 0; i < RUNS; i++) {
        // Alternating, so drift on the machine lands on both sides.
        samples.docker.push(await timeRun(docker, ws, c));
        samples.process.push(await timeRun(bare, ws, c));
      }
      const overhead = percentile(samples.docker, 50) - percentile(samples.process, 50);
      if (c === all[0]) pytestOverhead = overhead;
      console.log(`${c.name}: docker \`${c.command.docker}\`, process \`${c.command.process}\``);
      for (const kind of ['process', 'docker'] as const) {
        console.log(`  ${kind.padEnd(8)} p50 ${fmt(percentile(samples[kind], 50))}  p99 ${fmt(percentile(samples[kind], 99))}  (min ${fmt(Math.min(...samples[kind]))}, max ${fmt(Math.max(...samples[kind]))})`);
      }
      console.log(`  overhead per run (p50 docker - p50 process): ${overhead.toFixed(0)} ms\n`);
    }

    const ok = pytestOverhead < TARGET_OVERHEAD_MS;
    console.log(`target: sandbox overhead per test run < ${TARGET_OVERHEAD_MS} ms → ${ok ? 'met' : 'MISSED'} (${pytestOverhead.toFixed(0)} ms on the pytest case)`);
    console.log(`overhead_p50_ms ${pytestOverhead.toFixed(0)}`);
    if (!ok) process.exitCode = 1;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:sandbox failed: ${(err as Error).message}`);
  process.exit(1);
});
