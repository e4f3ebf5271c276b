/**
 * A fetch that keeps the headers of the last reply that was not ok. @google/genai and
 * ollama-js throw their HTTP errors without the response's headers, so a 429's
 * `retry-after` would be lost; the adapter reads it here after the SDK throws. One per
 * request: the adapters make a client per call.
 */
export interface HeaderKeepingFetch {
  fetch: typeof fetch;
  /** The headers of the last reply that was not ok, or null. */
  failedHeaders(): Headers | null;
}

export function headerKeepingFetch(base: typeof fetch): HeaderKeepingFetch {
  let failed: Headers | null = null;
  return {
    fetch: async (input, init) => {
      const res = await base(input, init);
      if (!res.ok) failed = res.headers;
      return res;
    },
    failedHeaders: () => failed,
  };
}

const UNDICI_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

interface Dispatcher {
  dispatch(opts: Record<string, unknown>, handler: unknown): boolean;
}

/**
 * Node's fetch with undici's header and body timeouts off, as @google/genai sends its own
 * requests (it does so only when given no fetch): our request timeout is the one deadline,
 * however long it is, not undici's 300 s default. The dispatcher is looked up per request
 * because undici creates it lazily.
 */
export const fetchWithoutUndiciTimeouts: typeof fetch = (input, init) => {
  const dispatcher: Dispatcher = {
    dispatch(opts, handler) {
      const global = (globalThis as unknown as Record<symbol, Dispatcher | undefined>)[UNDICI_DISPATCHER];
      if (!global) throw new Error('fetch: the undici global dispatcher is not available in this Node.js runtime');
      return global.dispatch({ ...opts, headersTimeout: 0, bodyTimeout: 0 }, handler);
    },
  };
  // a dispatch-only object is all undici calls; its full Dispatcher type is not ours to implement
  return fetch(input, { ...init, dispatcher } as unknown as RequestInit);
};
