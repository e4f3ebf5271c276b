/** A dependency check: resolves when the dependency answers. */
export type ReadinessProbe = () => Promise<unknown>;

export interface Readiness {
  ready: boolean;
  /** Per dependency: `ok`, or why not. */
  checks: Record<string, string>;
}

/** A lost Redis makes ioredis wait forever (BullMQ needs that), so every probe gets its own deadline. */
export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function probe(run: ReadinessProbe, ms: number): Promise<string> {
  try {
    await within(Promise.resolve().then(run), ms);
    return 'ok';
  } catch (e) {
    return (e as Error).message || 'failed';
  }
}

/** Runs every probe in parallel; ready only when all answer `ok`. */
export async function checkReadiness(probes: Record<string, ReadinessProbe>, timeoutMs = 2000): Promise<Readiness> {
  const names = Object.keys(probes);
  const results = await Promise.all(names.map((n) => probe(probes[n], timeoutMs)));
  const checks = Object.fromEntries(names.map((n, i) => [n, results[i]]));
  return { ready: results.every((r) => r === 'ok'), checks };
}

/** `redis: no answer within 200 ms; docker: connect ENOENT` — the failing dependencies, for a 503's message. */
export function failingChecks(r: Readiness): string {
  return Object.entries(r.checks)
    .filter(([, v]) => v !== 'ok')
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
}
