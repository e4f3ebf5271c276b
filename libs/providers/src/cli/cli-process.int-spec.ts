import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OperatorPolicy } from '@roundtable/contracts';
import { ProviderError } from '../provider';
import { createProvider } from '../provider-registry';
import { proposerRequest } from '../provider-request.fixture';
import { fakeCliKit } from './cli-test-kit.fixture';

let kit: ReturnType<typeof fakeCliKit>;
afterEach(() => kit?.cleanup());

/** Whether a process with this pid still exists (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

async function waitUntilGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('runCli, through the claude adapter and the fake `claude`', () => {
  it('kills a CLI that ignores SIGTERM with its whole process tree at the timeout (no orphan left, checked by pid)', async () => {
    kit = fakeCliKit((dir) => ({ replies: [{ role: 'proposer', fault: 'hang_ignoring_sigterm', pid_file: path.join(dir, 'pids') }] }));
    const pidFile = path.join(kit.dir, 'pids');
    const provider = createProvider('claude_cli', { type: 'cli', cli: 'claude' }, { env: kit.env, policy: OperatorPolicy.parse({}) });

    const started = Date.now();
    const failure = await provider.run(proposerRequest({ timeoutMs: 1_500 })).then(
      () => null,
      (e: unknown) => e as ProviderError,
    );
    expect(failure).toMatchObject({ code: 'TIMEOUT', retryable: true });
    // SIGTERM at the deadline is ignored; the group's SIGKILL follows after the grace (2 s).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);

    expect(existsSync(pidFile)).toBe(true);
    const pids = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(pids).toHaveLength(2);
    expect(await waitUntilGone(pids, 2_000)).toEqual([]);
  });
});
