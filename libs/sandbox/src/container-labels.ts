import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** Every container the sandbox runner creates carries these; the reaper finds leftovers by them. */
export const SANDBOX_LABELS = {
  marker: 'roundtable.sandbox',
  run: 'roundtable.run',
  /** Epoch milliseconds after which the container has outlived any run that could own it. */
  deadline: 'roundtable.deadline',
  /** `<hostname>/<pid>/<instance>` of the process that created it. */
  owner: 'roundtable.owner',
} as const;

/**
 * Distinguishes this process from an earlier one with the same pid: a test-runner in a
 * container is pid 1 every time it restarts.
 */
const INSTANCE = randomUUID();

export interface ContainerOwner {
  host: string;
  pid: number;
  instance: string;
}

export function currentOwner(): ContainerOwner {
  return { host: hostname(), pid: process.pid, instance: INSTANCE };
}

export function formatOwner(o: ContainerOwner): string {
  return `${o.host}/${o.pid}/${o.instance}`;
}

export function parseOwner(label: string | undefined): ContainerOwner | null {
  const m = /^(.+)\/(\d+)\/([^/]+)$/.exec(label ?? '');
  return m ? { host: m[1], pid: Number(m[2]), instance: m[3] } : null;
}
