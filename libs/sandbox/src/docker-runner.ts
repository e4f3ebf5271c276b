import { realpath, stat } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { currentOwner, formatOwner, SANDBOX_LABELS } from './container-labels';
import { dockerEndpoint, DockerEndpoint } from './docker-client';
import { OutputCapture } from './output-capture';
import { OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES, PIPE_DRAIN_GRACE_MS, STDOUT_TAIL_BYTES, TIMEOUT_EXIT_CODE } from './output-limits';
import { requestEnv } from './sandbox-env';
import { SandboxRefusedError } from './sandbox-refused.error';
import { SandboxUnavailableError } from './sandbox-unavailable.error';
import { clearSetIdBits, SetIdSweep, withSetIdSweepNote } from './setid-bits';
import { parseTestSummary } from './test-output-parser';
import { TestRunner, TestRunOutcome, TestRunRequest } from './test-runner';
import { grantWorkspaceToSandbox } from './workspace-grant';

export const DEFAULT_SANDBOX_IMAGE = 'roundtable/sandbox:latest';
/** The unprivileged user the image defines (docker/sandbox/Dockerfile, scripts/build-sandbox-image.sh). */
export const SANDBOX_UID = 10001;
export const SANDBOX_GID = 10001;
/** Where the workspace appears inside the container. */
export const SANDBOX_WORKDIR = '/workspace';

export interface SandboxLimits {
  memoryMb: number;
  cpus: number;
  pids: number;
  /** Size of the /tmp tmpfs (also HOME); counted against memoryMb by the kernel. */
  tmpfsMb: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { memoryMb: 1024, cpus: 1, pids: 256, tmpfsMb: 256 };

/**
 * The whole environment inside the container. Fixed, never derived from the runner's own
 * environment, which holds database URLs and provider keys.
 */
export const SANDBOX_CONTAINER_ENV: readonly string[] = [
  'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  'LANG=C.UTF-8',
  'HOME=/tmp',
  'PYTHONDONTWRITEBYTECODE=1',
  'PYTHONUNBUFFERED=1',
];

/** How long after its timeout a container may still exist before any reaper may take it. */
const DEADLINE_GRACE_MS = 60_000;

export interface DockerTestRunnerOptions {
  /** Defaults to DOCKER_HOST from this process's environment, else the default socket. */
  endpoint?: DockerEndpoint;
  image?: string;
  limits?: Partial<SandboxLimits>;
  /** The engine's runtime for the container (the operator's sandbox.runtime, e.g. runsc); unset: the engine's default. */
  runtime?: string;
}

export interface SandboxContainerSpec {
  image: string;
  command: string;
  workspace: string;
  limits: SandboxLimits;
  runId?: string;
  deadline: number;
  /** formatOwner(currentOwner()) of the creating process. */
  owner: string;
  runtime?: string;
  /** The request's own variables (TestRunRequest.env), after SANDBOX_CONTAINER_ENV. */
  env?: Record<string, string>;
}

/**
 * The container, as data. Kept separate from the Docker calls so the isolation settings can be
 * checked by a unit test: a dropped line here is a hole in the sandbox.
 */
export function sandboxContainerOptions(spec: SandboxContainerSpec): Docker.ContainerCreateOptions {
  const memory = spec.limits.memoryMb * 1024 * 1024;
  return {
    Image: spec.image,
    Cmd: ['/bin/sh', '-c', spec.command],
    WorkingDir: SANDBOX_WORKDIR,
    User: `${SANDBOX_UID}:${SANDBOX_GID}`,
    Env: [...SANDBOX_CONTAINER_ENV, ...Object.entries(requestEnv(spec.env)).map(([name, value]) => `${name}=${value}`)],
    Labels: {
      [SANDBOX_LABELS.marker]: '1',
      [SANDBOX_LABELS.run]: spec.runId ?? '',
      [SANDBOX_LABELS.deadline]: String(spec.deadline),
      [SANDBOX_LABELS.owner]: spec.owner,
    },
    NetworkDisabled: true,
    AttachStdin: false,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    OpenStdin: false,
    HostConfig: {
      // The only writable path besides the tmpfs; nothing else from the host is mounted,
      // the Docker socket least of all.
      Mounts: [{ Type: 'bind', Source: spec.workspace, Target: SANDBOX_WORKDIR, ReadOnly: false }],
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      IpcMode: 'private',
      PidsLimit: spec.limits.pids,
      Memory: memory,
      // Equal to Memory: no swap, so a memory hog is killed instead of thrashing the host.
      MemorySwap: memory,
      NanoCpus: Math.round(spec.limits.cpus * 1e9),
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${spec.limits.tmpfsMb}m,mode=1777` },
      // Output is streamed to us through attach; a json log on the host would let a test that
      // prints forever fill the engine's disk.
      LogConfig: { Type: 'none', Config: {} },
      AutoRemove: false, // removed by us after inspect: the OOM flag lives on the stopped container
      ...(spec.runtime ? { Runtime: spec.runtime } : {}),
    },
  };
}

/**
 * Runs the test command in a throw-away container: the workspace bind-mounted as the only
 * writable path, no network, read-only root, no capabilities, no privilege escalation,
 * uid 10001, pids / memory (no swap) / CPU limits, tmpfs /tmp, a fixed secret-free
 * environment, and a wall-clock timeout after which the container is killed. The container
 * is removed whatever happens.
 */
export class DockerTestRunner implements TestRunner {
  readonly kind = 'docker';
  readonly image: string;
  readonly limits: SandboxLimits;
  readonly runtime: string | undefined;
  private readonly endpoint: DockerEndpoint;

  constructor(opts: DockerTestRunnerOptions = {}) {
    this.endpoint = opts.endpoint ?? dockerEndpoint(process.env.DOCKER_HOST);
    this.image = opts.image ?? DEFAULT_SANDBOX_IMAGE;
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...definedOnly(opts.limits ?? {}) };
    this.runtime = opts.runtime;
  }

  async run(req: TestRunRequest): Promise<TestRunOutcome> {
    if (!Number.isFinite(req.timeoutMs) || req.timeoutMs <= 0) {
      throw new RangeError(`timeoutMs must be a positive number, got ${req.timeoutMs}`);
    }
    if (req.command.trim() === '') throw new Error('test command is empty');
    const workspace = await realpath(req.workspace);
    if (!(await stat(workspace)).isDirectory()) throw new Error(`workspace ${workspace} is not a directory`);
    await grantWorkspaceToSandbox(workspace, { uid: SANDBOX_UID, gid: SANDBOX_GID });

    const docker = this.endpoint.client;
    let container: Docker.Container;
    try {
      container = await docker.createContainer(
        sandboxContainerOptions({
          image: this.image,
          command: req.command,
          workspace,
          limits: this.limits,
          runId: req.runId,
          deadline: Date.now() + req.timeoutMs + DEADLINE_GRACE_MS,
          owner: formatOwner(currentOwner()),
          runtime: this.runtime,
          env: req.env,
        }),
      );
    } catch (err) {
      throw this.explain(err, 'create');
    }

    let outcome: TestRunOutcome;
    let sweep: SetIdSweep;
    try {
      outcome = await this.runContainer(container, req);
    } finally {
      // Whatever happened; if even this fails (engine gone), the reaper takes it later.
      await container.remove({ force: true, v: true }).catch(() => undefined);
      // After the container is gone, so nothing in it can set a bit again behind the sweep.
      sweep = await clearSetIdBits(workspace);
    }
    return withSetIdSweepNote(outcome, sweep);
  }

  /** Is the engine there? For the test-runner's start-up log, never a reason to crash. */
  async ping(): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      await this.endpoint.client.ping();
      return { ok: true };
    } catch (err) {
      return { ok: false, error: this.explain(err).message };
    }
  }

  private async runContainer(container: Docker.Container, req: TestRunRequest): Promise<TestRunOutcome> {
    const capture = new OutputCapture(OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES);
    // Attached before start, so the first bytes are not lost. stdout and stderr are merged in
    // arrival order, as the process runner does.
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        capture.push(chunk);
        done();
      },
    });
    this.endpoint.client.modem.demuxStream(stream, sink, sink);
    const streamEnded = new Promise<void>((done) => {
      stream.once('end', done);
      stream.once('close', done);
      stream.once('error', () => done());
    });

    const started = process.hrtime.bigint();
    try {
      await container.start();
    } catch (err) {
      throw this.explain(err, 'start');
    }
    const exited = container.wait() as Promise<{ StatusCode: number }>;
    exited.catch(() => undefined); // awaited below; this only keeps an early rejection from being "unhandled"

    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      exited.then(() => false),
      new Promise<boolean>((done) => {
        timer = setTimeout(() => done(true), req.timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      await container.kill({ signal: 'SIGKILL' }).catch(ignoreGone);
      await exited.catch(() => undefined);
    }
    const duration_s = Number(process.hrtime.bigint() - started) / 1e9;

    let drainTimer: NodeJS.Timeout | undefined;
    await Promise.race([streamEnded, new Promise<void>((done) => (drainTimer = setTimeout(done, PIPE_DRAIN_GRACE_MS)))]);
    clearTimeout(drainTimer);
    (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();

    const state = (await container.inspect()).State;
    const exit_code = timedOut ? TIMEOUT_EXIT_CODE : state.ExitCode;
    const oom_killed = state.OOMKilled === true;
    // Counts come from what the tests printed, before our own notes are added.
    const summary = parseTestSummary(capture.text(), exit_code);
    if (oom_killed) {
      capture.push(Buffer.from(`\n[sandbox] out of memory: a process was killed by the kernel at the ${this.limits.memoryMb} MiB limit (exit ${state.ExitCode})\n`));
    }
    if (timedOut) {
      capture.push(Buffer.from(`\n[sandbox] timed out: the container was killed after ${req.timeoutMs / 1000} s\n`));
    }

    return {
      command: req.command,
      exit_code,
      ...summary,
      duration_s: Math.round(duration_s * 1000) / 1000,
      stdout_tail: capture.last(STDOUT_TAIL_BYTES),
      output: capture.text(),
      timed_out: timedOut,
      oom_killed,
    };
  }

  /**
   * Turns "cannot reach the engine" and "no such image" into what the operator should do, and
   * any other 4xx (the engine refusing the container as asked) into a SandboxRefusedError with
   * the engine's words. 5xx and the rest stay as they are: the engine's trouble, worth a retry.
   */
  private explain(err: unknown, step: 'create' | 'start' | 'ping' = 'ping'): Error {
    const e = err as NodeJS.ErrnoException & { statusCode?: number; json?: { message?: string } };
    if (e.code && UNREACHABLE_CODES.has(e.code)) {
      return new SandboxUnavailableError(
        `Docker engine unreachable at ${this.endpoint.address} (${e.code}): start it (scripts/ensure-docker.sh) or set sandbox.runner: process to run without a sandbox`,
      );
    }
    const message = e.json?.message ?? e.message ?? String(err);
    if (e.statusCode === 404 && /no such image/i.test(message)) {
      return new SandboxUnavailableError(
        `sandbox image ${this.image} is not on the Docker engine at ${this.endpoint.address}: build it with scripts/build-sandbox-image.sh (needs no registry) or docker build -t ${this.image} docker/sandbox`,
      );
    }
    if (step !== 'ping' && e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) {
      return new SandboxRefusedError(e.statusCode, message.trim(), step);
    }
    return err instanceof Error ? err : new Error(message);
  }
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'ECONNRESET', 'EPIPE']);

/** 404: already gone; 409 / 304: already stopped. All are the state we want. */
function ignoreGone(err: unknown): void {
  const status = (err as { statusCode?: number }).statusCode;
  if (status !== 404 && status !== 409 && status !== 304) throw err;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
