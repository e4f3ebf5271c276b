const DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * Jest runs a test file in a vm realm whose globalThis lacks the undici dispatcher Node
 * keeps on its own globalThis; @google/genai looks it up there and fails with "Undici
 * globalDispatcher is not available". This copies Node's dispatcher into the test realm so
 * the SDK runs its production path unchanged. A no-op outside jest.
 */
export function exposeUndiciDispatcherToTestRealm(): void {
  const here = globalThis as unknown as Record<symbol, unknown>;
  if (here[DISPATCHER]) return;
  // `fetch` comes from Node's realm, so its Function constructor evaluates there.
  const nodeRealm = (fetch as unknown as { constructor: (code: string) => () => Record<symbol, unknown> }).constructor('return globalThis')();
  new Headers(); // undici creates its dispatcher lazily
  if (nodeRealm[DISPATCHER]) here[DISPATCHER] = nodeRealm[DISPATCHER];
}
