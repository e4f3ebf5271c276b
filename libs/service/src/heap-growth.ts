import { setFlagsFromString } from 'node:v8';

/** V8's flag, as node takes it on its command line (either spelling; NODE_OPTIONS refuses it). */
const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Holds a service's heap to what its last full collection kept plus `percent` %, instead of
 * V8's own growing factor, which it picks from its heap limit (large on any machine with a few
 * GB) and how fast the collector keeps up with allocation. The orchestrator keeps nothing
 * between steps (a run in flight is rows and a job), yet at 500 runs in flight it allocated
 * fast enough (every step's reads, parses and writes, 50 steps at once) for V8 to let the old
 * generation reach 3 × its ~55 MB live before collecting: 155 → 331 MB resident for garbage
 * (bench/README.md, issue 27). Not a cap: V8 still grows the heap as far as its live data needs,
 * and fails only at its usual limit.
 *
 * V8 reads the flag each time it sets the next collection's threshold, so setting it at the
 * start (before the heap has grown) is as good as passing it to node. An operator's own
 * (`node --heap-growing-percent=N dist/apps/<name>/main.js`; node refuses it in NODE_OPTIONS)
 * wins; returns the flag set, or null when the operator's was kept.
 */
export function boundHeapGrowth(
  percent: number,
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): string | null {
  if (!Number.isInteger(percent) || percent <= 0) throw new Error(`heap growing percent must be a positive integer, not ${percent}`);
  if (execArgv.some((a) => FLAG.test(a))) return null;
  const flag = `--heap-growing-percent=${percent}`;
  setFlags(flag);
  return flag;
}
