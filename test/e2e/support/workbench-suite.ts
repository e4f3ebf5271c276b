import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchBrowser, type Pipeline, type PipelineOptions, startPipeline } from '@roundtable/testing';
import { pastedProject, workbench as wb } from './workbench-pages';

const REPO = path.resolve(__dirname, '../../..');
/** Where `node tools/build.mjs` puts the workbench; the api serves it from there (WEB_ROOT). */
export const WEB_ROOT = path.join(REPO, 'dist/apps/web');

/** What a workbench e2e file holds for its tests: set in beforeAll, so read it inside a test. */
export interface WorkbenchSuite {
  pipeline: Pipeline;
  browser: Browser;
  context: BrowserContext;
  /** Uncaught exceptions of the app's pages (openWithToken collects them); each test must end with none. */
  pageErrors: string[];
}

/**
 * The four services with the built workbench, and a Chromium context, for one e2e file: registers
 * its beforeAll (fails at once, naming the fix, when the workbench is not built), afterAll and an
 * afterEach that fails a test whose pages threw.
 */
export function workbenchSuite(opts: { env?: Record<string, string>; pipeline?: Omit<PipelineOptions, 'env' | 'apiEnv'>; context?: BrowserContextOptions } = {}): WorkbenchSuite {
  const suite = { pageErrors: [] as string[] } as WorkbenchSuite;
  beforeAll(async () => {
    if (!existsSync(path.join(WEB_ROOT, 'index.html'))) throw new Error(`${WEB_ROOT}/index.html is missing: run \`node tools/build.mjs\` first`);
    suite.pipeline = await startPipeline({ ...opts.pipeline, env: { HOST: '127.0.0.1', ...opts.env }, apiEnv: { WEB_ROOT } });
    suite.browser = await launchBrowser();
    suite.context = await suite.browser.newContext(opts.context);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.pipeline?.stop();
  });
  afterEach(() => {
    expect(suite.pageErrors.splice(0)).toEqual([]);
  });
  return suite;
}

/** Submits a project file through New run (pasted, as a person would) and answers the new run's id once its page is open. */
export async function submitPasted(page: Page, file: string, opts: Parameters<typeof pastedProject>[1] = {}): Promise<string> {
  await page.getByLabel('Project file', { exact: true }).fill(pastedProject(file, opts));
  await wb.button(page, 'Submit run').click();
  await page.waitForURL(/\/runs\/run_[a-z0-9]+$/, { timeout: 60_000 });
  return /\/runs\/(run_[a-z0-9]+)$/.exec(page.url())![1];
}
