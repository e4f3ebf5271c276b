import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

/** The system's Redis 7 binaries, which the cluster and sentinel fixtures start as processes. */
export const REDIS_SERVER_BIN = '/usr/bin/redis-server';
export const REDIS_CLI_BIN = '/usr/bin/redis-cli';

/** One redis-server (or sentinel) process started by a fixture, with its own directory and log file. */
export interface RedisServerProcess {
  port: number;
  pid: number;
  dir: string;
  logPath: string;
  /** Resolves once the process has exited (for whatever reason). */
  exited: Promise<void>;
  isRunning(): boolean;
  /** The last lines of its log, for error messages. */
  logTail(lines?: number): string;
  /** SIGKILL (no shutdown, no save), resolved once it has exited. */
  kill(): Promise<void>;
}

/**
 * Every process a fixture started and has not seen exit: if the test process exits without
 * stopping its fixtures (a crash, a forgotten afterAll), they are killed with it instead of
 * outliving it and holding their ports.
 */
const liveProcesses = new Set<ChildProcess>();
let exitHookInstalled = false;
function killLiveProcessesOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of liveProcesses) child.kill('SIGKILL');
  });
}

/** Ports handed out in this test process, so two nodes started together never get the same one from freePort. */
const portsHandedOut = new Set<number>();

/** A free port no other fixture process of this test process was given. */
export async function unusedPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!portsHandedOut.has(port)) {
      portsHandedOut.add(port);
      return port;
    }
  }
}

function tailOf(logPath: string, lines: number): string {
  try {
    return readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch (e) {
    return `(no log: ${(e as Error).message})`;
  }
}

/** An error about one node that carries the end of that node's log, where the reason usually is. */
export function nodeError(node: Pick<RedisServerProcess, 'port' | 'logPath' | 'logTail'>, message: string): Error {
  return new Error(`redis 127.0.0.1:${node.port}: ${message}\n--- last lines of ${node.logPath} ---\n${node.logTail()}`);
}

/**
 * Sends one command to one node over a connection of its own (opened, used, closed), with a
 * timeout and no retries, so a dead or hung node fails the call at once with its port in the
 * message instead of queueing it, the way a cluster or sentinel client would.
 */
export async function nodeCommand(port: number, args: (string | number)[], timeoutMs = 2_000): Promise<unknown> {
  const conn = new IORedis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  conn.on('error', () => {}); // the rejected call below reports it
  try {
    await conn.connect();
    const [command, ...rest] = args;
    return await conn.call(String(command), ...rest.map(String));
  } catch (e) {
    throw new Error(`127.0.0.1:${port} ${args.join(' ')}: ${(e as Error).message}`);
  } finally {
    conn.disconnect();
  }
}

/** The `field:value` lines of an INFO or CLUSTER INFO reply. */
export function infoFields(reply: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of String(reply).split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) fields[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  return fields;
}

/**
 * Starts redis-server with the arguments `argv` builds for a port (and its directory), stdout
 * and stderr to `<dir>/redis.log`, and resolves once it answers PING. A port taken between
 * freePort and the bind (another process got it) is retried with a new port; any other early
 * exit, or no PONG in time, fails with the log's last lines.
 */
export async function startRedisServerProcess(
  dir: string,
  argv: (port: number) => Promise<string[]> | string[],
  readyTimeoutMs = 10_000,
): Promise<RedisServerProcess> {
  const logPath = `${dir}/redis.log`;
  for (let attempt = 1; ; attempt++) {
    const port = await unusedPort();
    const logFd = openSync(logPath, 'a');
    let child: ChildProcess;
    try {
      child = spawn(REDIS_SERVER_BIN, await argv(port), { cwd: dir, stdio: ['ignore', logFd, logFd] });
    } finally {
      closeSync(logFd);
    }
    killLiveProcessesOnExit();
    liveProcesses.add(child);
    let running = true;
    const exited = new Promise<void>((resolve) => {
      const done = () => {
        running = false;
        liveProcesses.delete(child);
        resolve();
      };
      child.once('exit', done);
      child.once('error', done); // spawn failed (no binary): 'exit' never comes
    });
    const node: RedisServerProcess = {
      port,
      pid: child.pid ?? -1,
      dir,
      logPath,
      exited,
      isRunning: () => running,
      logTail: (lines = 20) => tailOf(logPath, lines),
      kill: async () => {
        if (running) child.kill('SIGKILL');
        await exited;
      },
    };
    try {
      await waitFor(
        `redis-server on port ${port} to answer PING`,
        async () => {
          if (!running) throw new Error('exited');
          return (await nodeCommand(port, ['PING'], 500)) === 'PONG' ? true : undefined;
        },
        readyTimeoutMs,
        50,
      );
      return node;
    } catch (e) {
      await node.kill();
      if (/address already in use/i.test(node.logTail()) && attempt < 3) continue;
      throw nodeError(node, `did not start: ${(e as Error).message}`);
    }
  }
}

/** A fixture's temporary directory and the redis-server processes started in it. */
export interface RedisProcessGroup {
  rootDir: string;
  processes: RedisServerProcess[];
  /** Kills every process and removes the directory; calling it again does nothing. */
  stop(): Promise<void>;
}

/** A fresh group under the system's temporary directory (`<tag>-XXXXXX`), stopped as one. */
export function redisProcessGroup(tag: string): RedisProcessGroup {
  const rootDir = mkdtempSync(path.join(os.tmpdir(), `${tag}-`));
  const processes: RedisServerProcess[] = [];
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.all(processes.map((p) => p.kill()));
      rmSync(rootDir, { recursive: true, force: true });
    })());
  return { rootDir, processes, stop };
}
