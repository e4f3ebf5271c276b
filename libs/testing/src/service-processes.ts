import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export type ServiceName = 'api' | 'orchestrator' | 'provider-worker' | 'test-runner';

export interface RunningService {
  name: ServiceName;
  process: ChildProcess;
  /** Everything the process printed so far (stdout + stderr). */
  output: () => string;
}

const REPO_ROOT = path.resolve(__dirname, '../../..');

export function builtServicePath(name: ServiceName): string {
  return path.join(REPO_ROOT, 'dist', 'apps', name, 'main.js');
}

/** What a started service prints once it is consuming or listening. */
const READY_LINE: Record<ServiceName, RegExp> = {
  api: /listening on/i,
  orchestrator: /consuming queue/i,
  'provider-worker': /consuming queue|discovering provider queues/i,
  // Each of its two processors says so once it takes jobs (either may be first).
  'test-runner': /consuming queue \S+:(workspace[\s\S]*consuming queue \S+:tests|tests[\s\S]*consuming queue \S+:workspace)/i,
};

/**
 * Starts a built service (`node dist/apps/<name>/main.js`) as its own process, the way an
 * operator would, and resolves once it says it is ready. End-to-end tests use real
 * processes so that a service that only works in-process cannot pass.
 */
export async function startService(name: ServiceName, env: Record<string, string>, timeoutMs = 30_000): Promise<RunningService> {
  const main = builtServicePath(name);
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  let out = '';
  const child = spawn(process.execPath, [main], {
    // HEALTH_PORT 0: several workers on one machine must not all claim 9464; healthUrl() finds the port.
    // ROUNDTABLE_POLICY: the suite's operator policy (test/setup-policy.js) unless the test names its own.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HEALTH_PORT: '0',
      ...(process.env.ROUNDTABLE_POLICY ? { ROUNDTABLE_POLICY: process.env.ROUNDTABLE_POLICY } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const svc: RunningService = { name, process: child, output: () => out };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not become ready in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      if (READY_LINE[name].test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready:\n${out}`));
    });
  });
  return svc;
}

/** The base URL of a worker's ops server (/healthz, /readyz, /metrics), from the port it logged at start. */
export async function healthUrl(svc: RunningService, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = /ops server on port (\d+)/.exec(svc.output());
    if (m) return `http://127.0.0.1:${m[1]}`;
    if (Date.now() > deadline) throw new Error(`${svc.name} did not log its ops port within ${timeoutMs} ms:\n${svc.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGTERM (graceful: workers finish their jobs), then SIGKILL after a grace period. */
export async function stopService(svc: RunningService, graceMs = 10_000): Promise<number | null> {
  if (svc.process.exitCode !== null || svc.process.signalCode !== null) return svc.process.exitCode;
  return new Promise((resolve) => {
    const timer = setTimeout(() => svc.process.kill('SIGKILL'), graceMs);
    svc.process.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    svc.process.kill('SIGTERM');
  });
}
