import { readFileSync } from 'node:fs';
import type { Pool } from 'pg';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ); 100 on every Linux Node supports. */
const CLOCK_TICKS = 100;

/** CPU time (user + system) a process has used, in ms; null off Linux or once it has exited. */
export function processCpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** Backend pids serving a database, by application_name (each service names its pool). */
export async function backendPids(pg: Pool, database: string): Promise<Map<number, string>> {
  const { rows } = await pg.query<{ pid: number; app: string }>(
    `SELECT pid, application_name AS app FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [database],
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
export async function cpuSnapshot(processes: Record<string, number | undefined>, pg: Pool, database: string): Promise<CpuSnapshot> {
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
