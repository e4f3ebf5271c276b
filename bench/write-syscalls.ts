import { readFileSync } from 'node:fs';

/**
 * Write system calls a process has made (/proc/<pid>/io `syscw`): each socket write to Redis or
 * Postgres is one (a query, a pipeline, a reply), so their count per call says how many round
 * trips a call costs, where CPU per call says what they cost. Null off Linux, for a process
 * that has exited or one whose io file this user may not read.
 */
export function writeSyscalls(pid: number | undefined, field: 'syscw' | 'wchar' = 'syscw'): number | null {
  if (!pid) return null;
  try {
    const m = new RegExp(`^${field}:\\s*(\\d+)$`, 'm').exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** syscw (or wchar: the bytes those calls wrote) of each named process, now (those that cannot be read are left out). */
export function writeSyscallSnapshot(pids: Record<string, number | undefined>, field: 'syscw' | 'wchar' = 'syscw'): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, pid] of Object.entries(pids)) {
    const n = writeSyscalls(pid, field);
    if (n !== null) out.set(name, n);
  }
  return out;
}

/**
 * Write system calls made between two snapshots, by `group(name)` (default: the name itself).
 * A process in one snapshot only (a connection a pool opened or closed in between) is left out.
 */
export function writeSyscallsBetween(before: Map<string, number>, after: Map<string, number>, group: (name: string) => string = (n) => n): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, n] of after) {
    const was = before.get(name);
    if (was === undefined) continue;
    const key = group(name);
    out.set(key, (out.get(key) ?? 0) + n - was);
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
