import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { expectVisible } from './workbench-expect';

/**
 * The workbench as a person sees it, by the accessible names and test ids of the DOM contract
 * (the WEB_CONTRACT): what the browser e2e selects by, in one place.
 */
export const workbench = {
  tokenInput: (page: Page) => page.getByLabel('API token'),
  heading: (page: Page, name: string | RegExp) => page.getByRole('heading', { name }),
  /** A `<section aria-labelledby>` whose h2 is `name`. */
  section: (page: Page, name: string) => page.getByRole('region', { name, exact: true }),
  stream: (page: Page) => page.getByRole('status', { name: 'Stream' }),
  runStatus: (page: Page) => page.getByLabel('Run status', { exact: true }),
  verdict: (page: Page) => page.getByLabel('Verdict', { exact: true }),
  callRows: (page: Page) => page.getByTestId('call-row'),
  button: (page: Page, name: string) => page.getByRole('button', { name, exact: true }),
  /** A tab of the run page: Overview, Calls, Proposals or Debate, Diff & tests, Report, Events. */
  tab: (page: Page, name: string) => page.getByRole('tab', { name, exact: true }),
};

/**
 * Opens a tab of the run page (its sections are in the DOM only while it is open) and waits until
 * it is the selected one.
 */
export async function openTab(page: Page, name: string): Promise<void> {
  const tab = workbench.tab(page, name);
  await expectVisible(tab);
  await tab.click();
  await page.getByRole('tab', { name, exact: true, selected: true }).waitFor({ timeout: 60_000 });
}

/**
 * Opens `url` in a new tab of `context` and gives it `token` on the token screen. A new tab
 * always meets that screen: the token lives in sessionStorage, which is per tab.
 *
 * `untilRoleKnown`: returns only once the app has asked the api who this token is (GET /v1/me
 * with it, answered with any status) and rendered what it learnt. Acts are absent until the role is
 * known, so "no act buttons" checked before then would hold for a write token too.
 */
export async function openWithToken(
  context: BrowserContext,
  url: string,
  token: string,
  pageErrors: string[],
  opts: { untilRoleKnown?: boolean } = {},
): Promise<Page> {
  const page = await context.newPage();
  // An uncaught exception in the app is a failure even when the page still looks right.
  page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  await page.goto(url);
  // The token screen may ask /v1/me without a token first (to offer an open api): only the answer to this token counts.
  const roleAsked = opts.untilRoleKnown
    ? page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/me' && r.request().headers()['authorization'] === `Bearer ${token}`, { timeout: 60_000 })
    : undefined;
  await enterToken(page, token);
  if (roleAsked) {
    await roleAsked;
    // One frame and one task: React has committed what the answer changed.
    // (A string: it runs in the page, where requestAnimationFrame is; this file is typed for node.)
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))');
  }
  return page;
}

export async function enterToken(page: Page, token: string): Promise<void> {
  const input = workbench.tokenInput(page);
  await expectVisible(input);
  await input.fill(token);
  await page.getByRole('button', { name: 'Use token', exact: true }).click();
  await input.waitFor({ state: 'detached', timeout: 60_000 });
}

/**
 * A project file's text as a person pastes it into `Project file`, changed only where this
 * server needs it: the replay cassette's path made absolute (the api resolves a relative one
 * against its own directory, not the file's), `latency_ms` on the replay provider when asked,
 * and `sandbox: process` for a build project (the test command as a subprocess: the browser
 * is what is tested here, not the Docker sandbox). Every other line stays where it was, so an
 * error's line number is the file's.
 */
export function pastedProject(file: string, opts: { latencyMs?: number; sandboxProcess?: boolean } = {}): string {
  const dir = path.dirname(file);
  let text = readFileSync(file, 'utf8').replace(/cassette: ([^\s,}]+)/g, (_, rel: string) => {
    const latency = opts.latencyMs ? `, latency_ms: ${opts.latencyMs}` : '';
    return `cassette: ${path.resolve(dir, rel)}${latency}`;
  });
  if (opts.sandboxProcess) text = `${text.trimEnd()}\nsandbox: process\n`;
  return text;
}

/** The 1-based line of the first line of `text` matching `pattern`. */
export function lineOf(text: string, pattern: RegExp): number {
  const i = text.split('\n').findIndex((l) => pattern.test(l));
  if (i < 0) throw new Error(`no line matches ${pattern}`);
  return i + 1;
}

/** The call ids the timeline links to, in order (what "the same call rows" means). */
export async function callLinks(rows: Locator): Promise<string[]> {
  const links = rows.locator('a[href*="/calls/"]');
  const hrefs = await Promise.all(Array.from({ length: await links.count() }, (_, i) => links.nth(i).getAttribute('href')));
  return hrefs.map((h) => (h ?? '').replace(/^.*\/calls\//, ''));
}
