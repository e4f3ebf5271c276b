import { readFileSync } from 'node:fs';

/**
 * What a process has written (/proc/<pid>/io): `syscw`, its write system calls — each socket
 * write to Redis or Postgres is one (a query, a pipeline, a reply), so their count per call says
 * how many round trips a call costs, where CPU per call says what they cost — and `wchar`, the
 * bytes those calls wrote.
 */
export interface WriteCounters {
  syscw: number;
  wchar: number;
}

/** The process's counters, in one read; null off Linux, once it has exited, or when this user may not read them. */
export function writeCounters(pid: number | undefined): WriteCounters | null {
  if (!pid) return null;
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const syscw = /^syscw:\s*(\d+)$/m.exec(io);
    const wchar = /^wchar:\s*(\d+)$/m.exec(io);
    return syscw && wchar ? { syscw: Number(syscw[1]), wchar: Number(wchar[1]) } : null;
  } catch {
    return null;
  }
}

/** The counters of each named process, now (those that cannot be read are left out). */
export function writeSnapshot(pids: Record<string, number | undefined>): Map<string, WriteCounters> {
  const out = new Map<string, WriteCounters>();
  for (const [name, pid] of Object.entries(pids)) {
    const counters = writeCounters(pid);
    if (counters) out.set(name, counters);
  }
  return out;
}

/**
 * One counter's growth between two snapshots, by `group(name)` (default: the name itself), of the
 * processes `keep` accepts. A process in one snapshot only (a connection a pool opened or closed
 * in between) is left out.
 */
export function writesBetween(
  before: Map<string, WriteCounters>,
  after: Map<string, WriteCounters>,
  field: keyof WriteCounters,
  opts: { group?: (name: string) => string; keep?: (name: string) => boolean } = {},
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, now] of after) {
    const was = before.get(name);
    if (!was || (opts.keep && !opts.keep(name))) continue;
    const key = opts.group ? opts.group(name) : name;
    out.set(key, (out.get(key) ?? 0) + now[field] - was[field]);
  }
  return out;
}

/** "name n.nn, …" per unit, largest first (`scale` divides first: 1024 for KiB). */
export function describePerUnit(counts: Map<string, number>, units: number, scale = 1): string {
  return [...counts]
    .map(([name, n]) => [name, n / scale / units] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n.toFixed(2)}`)
    .join(', ');
}
