/**
 * What every phase of `npm run bench:overhead` shares: the scratch database, the running
 * services, the floor, CPU accounting and the list of targets the summary prints.
 */
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import type { RunningService } from '@roundtable/testing';
import { cpuBetween, cpuSnapshot } from './cpu-usage';
import type { Floor } from './floor';

export const log = (line = '') => process.stdout.write(`${line}\n`);
export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

export const intEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return n;
};

/** One figure against its target, for the summary at the end. */
export interface TargetResult {
  name: string;
  figure: string;
  met: boolean;
}

export interface BenchContext {
  api: string;
  pg: Pool;
  db: { url: string; name: string };
  /** The bench's own Redis connection (server counters: INFO commandstats). */
  redis: Redis;
  /** The local redis-server's pid, for its CPU; undefined when Redis is not a process of this machine. */
  redisPid: number | undefined;
  services: RunningService[];
  floor: Floor;
  /** Worker concurrency of every service and of the floor. */
  concurrency: number;
  /** Postgres pool size of every service (node-postgres' default, which TypeORM uses), the floor's and the peer's. */
  poolSize: number;
  /** A directory of the bench's own, removed at the end (cassettes it generates). */
  scratchDir: string;
  targets: TargetResult[];
  /** What broke (a run that did not end as it should): the bench exits 1 after printing everything. */
  failures: string[];
  /** Registers a cleanup the bench runs at its end, also on Ctrl-C (a phase's own scratch database). */
  defer: (cleanup: () => Promise<unknown> | unknown) => void;
}

export const servicePids = (ctx: BenchContext): Record<string, number | undefined> => Object.fromEntries(ctx.services.map((s) => [s.name, s.process.pid]));

/**
 * CPU ms used while `work` ran, per process name and per Postgres backend application_name, of
 * the backends of the scratch database and of any `extraDatabases` (the DBOS peer's system database).
 */
export async function measureCpu<T>(
  ctx: BenchContext,
  pids: Record<string, number | undefined>,
  work: () => Promise<T>,
  extraDatabases: string[] = [],
): Promise<[T, Map<string, number>]> {
  const databases = [ctx.db.name, ...extraDatabases];
  const before = await cpuSnapshot(pids, ctx.pg, databases);
  const result = await work();
  return [result, cpuBetween(before, await cpuSnapshot(pids, ctx.pg, databases))];
}

/** The services and their backends; not the bench's own polling connection (`roundtable-bench`). */
export const overheadSide = (name: string) => !name.includes('roundtable-bench') && name !== 'bench';

/** Total and parts, largest first, each ÷ `per`: `17.90 = orchestrator 6.70, postgres (roundtable-orchestrator) 7.40, …`. */
export function cpuLine(used: Map<string, number>, per: number, keep: (name: string) => boolean): { total: number; line: string } {
  const parts = [...used].filter(([name]) => keep(name)).sort((a, b) => b[1] - a[1]);
  const total = parts.reduce((n, [, ms]) => n + ms, 0) / per;
  return { total, line: `${fmt(total)} = ${parts.map(([name, ms]) => `${name} ${fmt(ms / per)}`).join(', ')}` };
}

export function addCpu(into: Map<string, number>, from: Map<string, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}
