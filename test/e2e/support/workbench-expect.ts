import type { Locator } from 'playwright-core';

/**
 * Auto-waiting expectations for playwright-core, which (unlike @playwright/test) ships none:
 * the assertion is retried until it holds or `timeoutMs` passes, then its last failure is
 * thrown with jest's own message. Generous defaults: the CI machine has two busy cores, and a
 * page that gets there late is not what these tests are about.
 */
export async function eventually(assertion: () => Promise<void> | void, timeoutMs = 60_000, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (e) {
      if (Date.now() >= deadline) {
        if (e instanceof Error) e.message = `still failing after ${timeoutMs} ms: ${e.message}`;
        throw e;
      }
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The locator's text (trimmed) equals `want`, or matches it. */
export function expectText(locator: Locator, want: string | RegExp, timeoutMs?: number): Promise<void> {
  return eventually(async () => {
    const text = ((await locator.textContent({ timeout: 1_000 })) ?? '').trim();
    if (typeof want === 'string') expect(text).toBe(want);
    else expect(text).toMatch(want);
  }, timeoutMs);
}

/** The locator's text contains `part`. */
export function expectTextContaining(locator: Locator, part: string | RegExp, timeoutMs?: number): Promise<void> {
  return eventually(async () => {
    const text = (await locator.textContent({ timeout: 1_000 })) ?? '';
    if (typeof part === 'string') expect(text).toContain(part);
    else expect(text).toMatch(part);
  }, timeoutMs);
}

export function expectCount(locator: Locator, n: number, timeoutMs?: number): Promise<void> {
  return eventually(async () => expect(await locator.count()).toBe(n), timeoutMs);
}

/** Shown (attached and visible). */
export function expectVisible(locator: Locator, timeoutMs = 60_000): Promise<void> {
  return locator.waitFor({ state: 'visible', timeout: timeoutMs });
}
