import { execa } from 'execa';
import { mkdir, realpath, stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import * as path from 'node:path';
import { OutputCapture } from './output-capture';
import { OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES, PIPE_DRAIN_GRACE_MS, STDOUT_TAIL_BYTES, TIMEOUT_EXIT_CODE } from './output-limits';
import { requestEnv, sandboxEnv } from './sandbox-env';
import { clearSetIdBits, withSetIdSweepNote } from './setid-bits';
import { parseTestSummary } from './test-output-parser';
import { TestRunner, TestRunOutcome, TestRunRequest } from './test-runner';

export interface ProcessTestRunnerOptions {
  /** Environment the allowlist is taken from; defaults to this process's. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Extra variable names to pass through (secret-looking names are still dropped). */
  allowEnv?: readonly string[];
}

/**
 * Runs the test command as a plain subprocess: cwd = workspace, allowlisted env, scratch
 * HOME, wall-clock timeout that kills the whole process group. This is containment, not a
 * sandbox: the code can still read the host filesystem and use the network. It runs only
 * behind an explicit `sandbox: process` setting; DockerTestRunner is the default.
 */
export class ProcessTestRunner implements TestRunner {
  readonly kind = 'process';

  constructor(private readonly opts: ProcessTestRunnerOptions = {}) {}

  async run(req: TestRunRequest): Promise<TestRunOutcome> {
    if (!Number.isFinite(req.timeoutMs) || req.timeoutMs <= 0) {
      throw new RangeError(`timeoutMs must be a positive number, got ${req.timeoutMs}`);
    }
    if (req.command.trim() === '') throw new Error('test command is empty');
    const cwd = await realpath(req.workspace);
    if (!(await stat(cwd)).isDirectory()) throw new Error(`workspace ${cwd} is not a directory`);

    // Beside the workspace, not in it: dotfiles written by tools must not show up as
    // engineer output, and the real HOME (with its credentials) must not be reachable by name.
    const home = path.join(path.dirname(cwd), `${path.basename(cwd)}.home`);
    await mkdir(home, { recursive: true });
    const env = { ...sandboxEnv(this.opts.baseEnv ?? process.env, { home, allow: this.opts.allowEnv }), ...requestEnv(req.env) };

    const outcome = await runInProcessGroup(req, cwd, env);
    // The process group is dead by now; a file it made setuid would run as its owner (with
    // this runner, often the test-runner's own user) for anyone who finds it on the host.
    return withSetIdSweepNote(outcome, await clearSetIdBits(cwd));
  }
}

function runInProcessGroup(req: TestRunRequest, cwd: string, env: Record<string, string>): Promise<TestRunOutcome> {
  return new Promise<TestRunOutcome>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const capture = new OutputCapture(OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES);
    // detached: the shell leads a new process group, so one kill reaches everything it started.
    // Output is read here (buffer: false), into OutputCapture's head and tail, not kept whole.
    const child = execa('/bin/sh', ['-c', req.command], { cwd, env, extendEnv: false, detached: true, stdin: 'ignore', buffer: false, reject: false });
    child.stdout.on('data', (chunk: Buffer) => capture.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => capture.push(chunk));

    let timedOut = false;
    let exited = false;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch (err) {
        // ESRCH: the group is already empty, which is the goal.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') reject(err);
      }
    };

    const timer = setTimeout(() => {
      if (exited) return;
      timedOut = true;
      killGroup();
    }, req.timeoutMs);

    // Settles once the shell has exited and both streams have ended; for a shell that never
    // started, with the reason (there is no exit then).
    const finished = child.then((result) => {
      const cause = result.cause as NodeJS.ErrnoException | undefined;
      if (result.exitCode === undefined && result.signal === undefined && cause?.syscall?.startsWith('spawn')) {
        clearTimeout(timer);
        reject(cause);
      }
    });

    child.once('exit', (code, signal) => {
      exited = true;
      clearTimeout(timer);
      const duration_s = Number(process.hrtime.bigint() - started) / 1e9;
      // Background processes the tests left behind die with the run, not later.
      killGroup();

      // Something outside the group (setsid) may still hold the streams: it gets a grace, not the run's end.
      let drainTimer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((done) => {
        drainTimer = setTimeout(done, PIPE_DRAIN_GRACE_MS);
      });
      void Promise.race([finished, graceOver]).then(() => {
        clearTimeout(drainTimer);
        child.stdout.destroy();
        child.stderr.destroy();

        const exit_code = code ?? (timedOut ? TIMEOUT_EXIT_CODE : 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0));
        const output = capture.text();
        resolve({
          command: req.command,
          exit_code,
          ...parseTestSummary(output, exit_code),
          duration_s: Math.round(duration_s * 1000) / 1000,
          stdout_tail: capture.last(STDOUT_TAIL_BYTES),
          output,
          timed_out: timedOut,
          // Not observable without a memory cgroup of our own.
          oom_killed: false,
        });
      });
    });
  });
}
