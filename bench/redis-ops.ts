/**
 * Redis commands a phase sent, from the server's own counters (`INFO commandstats`). They are
 * server-wide: anything else using the same Redis while the phase runs is counted too (the
 * bench's floor is idle then; the services' idle workers' blocking polls are in it, as they are
 * in any deployment).
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { fmt } from './bench-context';

export type CommandStats = Map<string, number>;

export async function commandStats(redis: Redis): Promise<CommandStats> {
  const info = await redis.info('commandstats');
  const stats: CommandStats = new Map();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats.set(m[1], Number(m[2]));
  return stats;
}

/** `total 31.2 per call: evalsha 9.1, xadd 4.0, …` — the commands between two snapshots ÷ `per`, largest first. */
export function describeCommands(before: CommandStats, after: CommandStats, per: number, top = 10): { total: number; line: string } {
  const used = [...after]
    .map(([cmd, n]) => [cmd, n - (before.get(cmd) ?? 0)] as const)
    .filter(([cmd, n]) => n > 0 && cmd !== 'info')
    .sort((a, b) => b[1] - a[1]);
  const total = used.reduce((s, [, n]) => s + n, 0) / per;
  return { total, line: `${fmt(total)} = ${used.slice(0, top).map(([cmd, n]) => `${cmd} ${fmt(n / per)}`).join(', ')}` };
}

/** The redis-server's pid when it runs on this machine (its INFO process_id is a redis-server here), else undefined. */
export async function localRedisPid(redis: Redis): Promise<number | undefined> {
  const m = /^process_id:(\d+)/m.exec(await redis.info('server'));
  if (!m) return undefined;
  try {
    return readFileSync(`/proc/${m[1]}/comm`, 'utf8').trim().startsWith('redis-server') ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}
