import { spawn } from 'node:child_process';
import { ProviderError } from '../provider';

export interface CliRunOptions {
  /** Binary first, then its arguments, exactly as run (and as recorded on the call row). */
  argv: string[];
  cwd: string;
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

const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const KILL_GRACE_MS = 2_000;

/**
 * Runs a CLI once: stdin is /dev/null (codex waits on an open stdin), output is captured,
 * and at the deadline the whole process group gets SIGTERM then SIGKILL, because the CLIs
 * start helpers of their own. node:child_process rather than execa: execa 9 is ESM-only and
 * jest (CommonJS, no vm modules) cannot load it; this is all we needed from it.
 */
export function runCli(opts: CliRunOptions): Promise<CliRunResult> {
  const [binary, ...args] = opts.argv;
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(binary, args, { cwd: opts.cwd, env: opts.env, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], detached: true, uid: opts.uid, gid: opts.gid });
    } catch (e) {
      reject(spawnError(opts, binary, e));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        child.kill(signal);
      }
    };
    const stop = () => {
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const collect = (into: Buffer[]) => (d: Buffer) => {
      bytes += d.length;
      if (bytes <= MAX_OUTPUT_BYTES) into.push(d);
      else stop();
    };
    if (opts.input !== undefined) {
      // A CLI that exits before reading all of it (a bad flag) closes the pipe: its exit says why, not EPIPE.
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(opts.input);
    }
    child.stdout!.on('data', collect(out));
    child.stderr!.on('data', collect(err));
    const deadline = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    child.once('error', (e) => {
      clearTimeout(deadline);
      reject(spawnError(opts, binary, e));
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(deadline);
      if (killTimer) clearTimeout(killTimer);
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), exitCode, signal, timedOut });
    });
  });
}

function spawnError(opts: CliRunOptions, binary: string, e: unknown): ProviderError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    return new ProviderError('CLI_FAILED', `${opts.provider}: the CLI binary "${binary}" was not found (the operator policy's cli.binaries, the worker's ROUNDTABLE_<CLI>_BIN, or its PATH)`);
  }
  if (code === 'E2BIG') {
    return new ProviderError(
      'CLI_FAILED',
      `${opts.provider}: the prompt is too large to pass to "${binary}" on its command line (E2BIG); claude and codex take long prompts on stdin, this CLI does not: shorten the prompt (fewer or smaller files) or use another provider`,
    );
  }
  return new ProviderError('CLI_FAILED', `${opts.provider}: could not start "${binary}": ${(e as Error).message}`);
}
