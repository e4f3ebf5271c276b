import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, type Pipeline, saveScreenshot, startPipeline } from '@roundtable/testing';
import { eventually, expectCount, expectText, expectVisible } from './support/workbench-expect';
import { openTab, openWithToken, pastedProject, workbench as wb } from './support/workbench-pages';
import { ProviderGate } from './support/workbench-provider-gate';

jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '../..');
const WEB_ROOT = path.join(REPO, 'dist/apps/web');
const DD_DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const TOKEN = `studio-${randomBytes(12).toString('hex')}`;
const RUN_ENDS_MS = 180_000;

const graph = (page: Page) => page.getByTestId('stage-graph');
const bars = (page: Page) => page.getByTestId('waterfall-bar');
const eventRows = (page: Page) => page.getByTestId('event-row');

async function submit(page: Page, file: string, opts: Parameters<typeof pastedProject>[1] = {}): Promise<string> {
  await page.getByLabel('Project file', { exact: true }).fill(pastedProject(file, opts));
  await wb.button(page, 'Submit run').click();
  await page.waitForURL(/\/runs\/run_[a-z0-9]+$/, { timeout: 60_000 });
  return /\/runs\/(run_[a-z0-9]+)$/.exec(page.url())![1];
}

/**
 * The run page as an overview plus tabs (issue 22), in a real Chromium against the four services:
 * the build demo held mid-run (ProviderGate) shows its stage graph lit at the stage the database
 * says, and a waterfall bar per call; the Events tab lists envelopes as they arrive and filters
 * them by type; a tab's URL opens that tab on a reload; the arrow keys move between tabs; the
 * panel demo's five judges are five bars side by side.
 */
describe('the run page studio: overview, waterfall and events tabs', () => {
  let pipeline: Pipeline;
  let gate: ProviderGate;
  let browser: Browser;
  let context: BrowserContext;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(path.join(WEB_ROOT, 'index.html'))) throw new Error(`${WEB_ROOT}/index.html is missing: run \`node tools/build.mjs\` first`);
    pipeline = await startPipeline({ env: { API_TOKENS: `studio:${TOKEN}:write`, HOST: '127.0.0.1' }, apiEnv: { WEB_ROOT } });
    gate = new ProviderGate(pipeline);
    browser = await launchBrowser();
    context = await browser.newContext();
  });

  afterAll(async () => {
    await browser?.close();
    await gate?.close();
    await pipeline?.stop();
  });

  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  it("lights the build's current stage while it runs, draws a bar per call, and lists its events live with a type filter", async () => {
    const page = await openWithToken(context, `${pipeline.api}/new`, TOKEN, pageErrors);
    const runId = await submit(page, DD_DEMO, { latencyMs: 1000, sandboxProcess: true });
    await expectVisible(wb.tab(page, 'Overview'));
    expect(await wb.tab(page, 'Overview').getAttribute('aria-selected')).toBe('true');

    await gate.shutAfter(runId, 2);
    try {
      const held = await gate.heldAt(runId);
      const [{ stage }] = await pipeline.sql<{ stage: string }>(`SELECT stage FROM runs WHERE id = $1`, [runId]);
      // The stage graph, lit where the run stands; the stages it went through are marked passed.
      await expectVisible(graph(page));
      const current = graph(page).locator('[aria-current="step"]');
      await expectCount(current, 1);
      await eventually(async () => expect(await current.getAttribute('aria-label')).toBe(`current stage: ${stage}`));
      expect(await graph(page).locator('[data-stage="INIT"]').getAttribute('aria-label')).toBe('INIT: passed');
      expect(await graph(page).locator('[data-stage="DONE"]').getAttribute('aria-label')).toBe('DONE: not reached');
      // A loop edge says its rounds against the cap.
      await eventually(async () => expect((await graph(page).getByTestId('loop-label').allTextContents()).join(' | ')).toMatch(/round \d+ of \d+/));
      // One bar per call the run has (the held call's too, still queued).
      await expectCount(bars(page), held.length);
      await saveScreenshot(page, 'studio-overview-held');

      // The Events tab: the log so far, then more as the run goes on, without a reload.
      await openTab(page, 'Events');
      expect(new URL(page.url()).pathname).toBe(`/runs/${runId}/events`);
      await eventually(async () => expect(await eventRows(page).count()).toBeGreaterThan(3));
      const before = await eventRows(page).count();
      await gate.open();
      await eventually(async () => expect(await eventRows(page).count()).toBeGreaterThan(before));
    } finally {
      await gate.open();
    }
    // Ticking one type shows only its envelopes; unticking shows them all again.
    const stageChanged = page.getByRole('checkbox', { name: /^stage_changed\b/ });
    await stageChanged.check();
    await eventually(async () => {
      const types = await eventRows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-type')));
      expect(types.length).toBeGreaterThan(0);
      expect(new Set(types)).toEqual(new Set(['stage_changed']));
    });
    await stageChanged.uncheck();
    await eventually(async () => expect(new Set(await eventRows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))).size).toBeGreaterThan(1));

    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);
    // A tab's URL opens that tab on a reload.
    await page.reload();
    await expectText(wb.stream(page), 'ended');
    expect(await page.getByRole('tab', { selected: true }).textContent()).toBe('Events');
    await expectVisible(wb.section(page, 'Events'));
    await saveScreenshot(page, 'studio-events');

    // The keyboard: arrows move between tabs, and the URL follows.
    await wb.tab(page, 'Events').focus();
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('tab', { name: 'Report', selected: true }).waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe(`/runs/${runId}/report`);
    await page.keyboard.press('Home');
    await page.getByRole('tab', { name: 'Overview', selected: true }).waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe(`/runs/${runId}`);

    // Every call a bar; the finished build's graph lights DONE; Enter on a bar opens its call.
    const [{ calls }] = await pipeline.sql<{ calls: number }>(`SELECT count(*)::int AS calls FROM agent_calls WHERE run_id = $1`, [runId]);
    await expectCount(bars(page), calls);
    await eventually(async () => expect(await graph(page).locator('[aria-current="step"]').getAttribute('aria-label')).toBe('current stage: DONE'));
    const [first] = await pipeline.sql<{ id: string }>(`SELECT id FROM agent_calls WHERE run_id = $1 ORDER BY created_at, seq LIMIT 1`, [runId]);
    await bars(page).first().focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/runs/${runId}/calls/${first.id}$`), { timeout: 60_000 });
    await page.close();
  });

  it("draws the panel's five judges as five bars side by side", async () => {
    const page = await openWithToken(context, `${pipeline.api}/new`, TOKEN, pageErrors);
    const runId = await submit(page, PANEL_DEMO);
    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);
    const roast = page.locator('[data-testid="waterfall-bar"][data-stage="ROAST"]');
    await expectCount(roast, 5);
    const lanes = await roast.evaluateAll((els) => els.map((e) => e.getAttribute('data-lane')));
    expect(new Set(lanes).size).toBe(5);
    // They were in flight together: each queued before any of them finished.
    const judges = await pipeline.sql<{ created_at: Date; finished_at: Date }>(`SELECT created_at, finished_at FROM agent_calls WHERE run_id = $1 AND stage = 'ROAST'`, [runId]);
    expect(Math.max(...judges.map((j) => j.created_at.getTime()))).toBeLessThanOrEqual(Math.min(...judges.map((j) => j.finished_at.getTime())));
    // The panel has a Debate tab and no Diff & tests.
    await expectVisible(wb.tab(page, 'Debate'));
    expect(await wb.tab(page, 'Diff & tests').count()).toBe(0);
    await saveScreenshot(page, 'studio-panel-overview');
    await page.close();
  });
});
