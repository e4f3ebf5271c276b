import { execa } from 'execa';
import { ProviderError } from '../provider';

export interface CliRunOptions {
  /** Binary first, then its arguments, exactly as run (and as recorded on the call row). */
  argv: string[];
  cwd: string;
  /** The child's whole environment: nothing of this process's is added (cliChildEnv chose it). */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** For error messages: the provider name from the project file. */
  provider: string;
  /**
   * Written to the CLI's stdin, which is then closed (a prompt too long for the command line).
   * Without it stdin is /dev/null: codex waits on an open stdin.
   */
  input?: string;
  /** The user the child runs as (the policy's cli.run_as); unset: this process's own. */
  uid?: number;
  gid?: number;
}

export interface CliRunResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** stdout and stderr together; past it the CLI is stopped and what came before is kept. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const KILL_GRACE_MS = 2_000;

/**
 * Runs a CLI once: stdin is /dev/null (codex waits on an open stdin) or the prompt, output is
 * captured, and at the deadline the whole process group gets SIGTERM then, after a grace,
 * SIGKILL, because the CLIs start helpers of their own. execa's own `timeout` and
 * `forceKillAfterDelay` signal only the process it started, so the CLI leads a process group of
 * its own (`detached`) and the group is what we stop.
 */
export async function runCli(opts: CliRunOptions): Promise<CliRunResult> {
  const [binary, ...args] = opts.argv;
  const child = execa(binary, args, {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: false,
    ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
    // Counted and kept here, not by execa: its maxBuffer is per stream, ours is for both together.
    buffer: false,
    detached: true,
    uid: opts.uid,
    gid: opts.gid,
    // A CLI that fails still answers in its own words (stdout, stderr, exit code): the adapter reads them.
    reject: false,
  });

  let stopped = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    signalGroup(child, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_GRACE_MS);
    killTimer.unref();
  };

  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let bytes = 0;
  const collect = (into: Buffer[]) => (d: Buffer) => {
    bytes += d.length;
    if (bytes <= MAX_OUTPUT_BYTES) into.push(d);
    else stop();
  };
  child.stdout?.on('data', collect(out));
  child.stderr?.on('data', collect(err));

  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    stop();
  }, opts.timeoutMs);

  const result = await child;
  clearTimeout(deadline);
  if (stopped) {
    // The CLI is gone; whatever of its group outlived the SIGTERM goes now, not at the grace's end.
    clearTimeout(killTimer);
    signalGroup(child, 'SIGKILL');
  }
  const cause = result.cause as NodeJS.ErrnoException | undefined;
  if (result.exitCode === undefined && result.signal === undefined && cause?.syscall?.startsWith('spawn')) {
    throw spawnError(opts, binary, cause);
  }
  return {
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    exitCode: result.exitCode ?? null,
    signal: (result.signal as NodeJS.Signals | undefined) ?? null,
    timedOut,
  };
}

/** The CLI and everything it started (one process group: `detached`); an empty group is the goal. */
function signalGroup(child: { pid?: number; kill(signal: NodeJS.Signals): boolean }, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

function spawnError(opts: CliRunOptions, binary: string, e: NodeJS.ErrnoException): ProviderError {
  if (e.code === 'ENOENT') {
    return new ProviderError('CLI_FAILED', `${opts.provider}: the CLI binary "${binary}" was not found (the operator policy's cli.binaries, the worker's ROUNDTABLE_<CLI>_BIN, or its PATH)`);
  }
  if (e.code === 'E2BIG') {
    return new ProviderError(
      'CLI_FAILED',
      `${opts.provider}: the prompt is too large to pass to "${binary}" on its command line (E2BIG); claude and codex take long prompts on stdin, this CLI does not: shorten the prompt (fewer or smaller files) or use another provider`,
    );
  }
  return new ProviderError('CLI_FAILED', `${opts.provider}: could not start "${binary}": ${e.message}`);
}
