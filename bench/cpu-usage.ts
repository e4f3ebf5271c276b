import { readdirSync, readFileSync } from 'node:fs';
import type { Pool } from 'pg';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ); 100 on every Linux Node supports. */
const CLOCK_TICKS = 100;

/**
 * CPU time a process has used, in ms; null off Linux or once it has exited. From the scheduler's
 * own count (/proc/<pid>/task/<tid>/schedstat: nanoseconds on the CPU, summed over the threads),
 * because /proc/<pid>/stat counts in 10 ms ticks, too coarse for a window of a few steps. Falls
 * back to stat's utime + stime where schedstat is missing. (A thread that exited inside an
 * interval drops out of the sum; Node's and Postgres' threads live as long as the process.)
 */
export function processCpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // a thread that exited between the listing and the read
      }
    }
    if (Number.isFinite(ns) && ns > 0) return ns / 1e6;
  } catch {
    // no schedstat (or the process is gone): try stat
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * Backend pids serving a database (or several: the DBOS peer keeps its system database beside the
 * scratch one), by application_name (each service names its pool).
 */
export async function backendPids(pg: Pool, database: string | string[]): Promise<Map<number, string>> {
  const { rows } = await pg.query<{ pid: number; app: string }>(
    `SELECT pid, application_name AS app FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid()`,
    [typeof database === 'string' ? [database] : database],
  );
  return new Map(rows.map((r) => [r.pid, r.app || 'unnamed']));
}

export interface CpuSnapshot {
  processes: Map<string, number>;
  backends: Map<number, { app: string; ms: number }>;
}

/**
 * CPU time is what a busy machine cannot inflate the way it inflates latency: it says how
 * much work a step is, not how long it waited for a core. Postgres backends are counted per
 * connection; a connection opened or closed inside the interval is counted only in part.
 */
export async function cpuSnapshot(processes: Record<string, number | undefined>, pg: Pool, database: string | string[]): Promise<CpuSnapshot> {
  const backends = new Map<number, { app: string; ms: number }>();
  for (const [pid, app] of await backendPids(pg, database)) {
    const ms = processCpuMs(pid);
    if (ms !== null) backends.set(pid, { app, ms });
  }
  const procs = new Map<string, number>();
  for (const [name, pid] of Object.entries(processes)) {
    const ms = processCpuMs(pid);
    if (ms !== null) procs.set(name, ms);
  }
  return { processes: procs, backends };
}

/** CPU ms used between two snapshots, per process name and per backend application_name. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const used = new Map<string, number>();
  for (const [name, ms] of after.processes) used.set(name, ms - (before.processes.get(name) ?? ms));
  for (const [pid, { app, ms }] of after.backends) {
    const key = `postgres (${app})`;
    used.set(key, (used.get(key) ?? 0) + ms - (before.backends.get(pid)?.ms ?? 0));
  }
  return used;
}
