/** Polls until `probe` returns a value that is not undefined, or fails naming what it waited for. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
