import type { Page } from 'playwright-core';
import { expectNoSeriousA11yViolations, savePageShot } from './workbench-a11y';
import { eventually, expectCount, expectText, expectTextContaining, expectVisible } from './workbench-expect';
import { workbench as wb } from './workbench-pages';

/** What the eval's pages should show: its configurations' names (baselines included) and how many tasks. */
export interface EvalPagesExpectation {
  configs: string[];
  tasks: number;
}

/** The widths the workbench's pages are checked at: a desktop and a phone. */
const WIDTHS = [1280, 390] as const;

/** The page never scrolls sideways (wide tables scroll in their own box). */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, client } = (await page.evaluate('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })')) as { scroll: number; client: number };
  expect(scroll).toBeLessThanOrEqual(client);
}

/**
 * The workbench's eval pages (issue 25) for `evalId`, in `page` (a tab that already holds the
 * token: openWithToken), at 1280 and 390 px: /evals reached from the header's Evals link lists
 * the eval with its configurations; its page shows one summary row per configuration, the
 * matrix with `tasks` rows by the configurations' columns (a cell each), every pair's finding
 * in words, and the plot as an image that loaded (naturalWidth > 0, from a data: URL); axe finds
 * nothing serious and the page does not scroll sideways on either page. Screenshots go to
 * test-results/screenshots/evals-<width>.png and eval-<width>.png. The viewport is put back after.
 */
export async function checkEvalPages(page: Page, baseUrl: string, evalId: string, want: EvalPagesExpectation): Promise<void> {
  const before = page.viewportSize();
  const sorted = [...want.configs].sort();
  try {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });

      // The list, reached as a person would: from the header's nav (in-app, so it does not depend on the api answering index.html at /evals).
      await page.goto(`${baseUrl}/runs`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Evals', exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/evals');
      await expectVisible(wb.heading(page, 'Evals'));
      const row = page.locator(`[data-testid="eval-row"][data-eval="${evalId}"]`);
      await expectVisible(row);
      for (const name of want.configs) await expectTextContaining(row, name);
      await expectTextContaining(row.getByTestId('eval-row-progress'), /^\d+\/\d+$/);
      await expectNoSeriousA11yViolations(page, `evals-${width}`);
      await eventually(() => expectNoHorizontalOverflow(page));
      await savePageShot(page, 'evals');

      // The eval's page.
      await row.getByRole('link').first().click();
      await page.waitForURL((u) => u.pathname === `/evals/${encodeURIComponent(evalId)}`);
      await expectVisible(wb.heading(page, /^Eval: /));
      await expectTextContaining(page.getByTestId('eval-progress'), /^\d+\/\d+/);

      // One summary row per configuration, each with its pass rate as counts.
      const summaryRows = page.getByTestId('eval-summary-row');
      await expectCount(summaryRows, want.configs.length);
      await eventually(async () => expect((await summaryRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-config') ?? ''))).sort()).toEqual(sorted));
      for (const rate of await page.getByTestId('eval-pass-rate').all()) await expectText(rate, /^\d+\/\d+( \(\d+ %\))?$/);

      // Every pair's finding is said in words.
      for (const finding of await page.getByTestId('eval-pair-finding').all()) await expectText(finding, /^(significant: .+ passes more|no significant difference)$/);

      // The matrix: tasks × configurations, a cell at each crossing, each with a state.
      await expectCount(page.getByTestId('eval-matrix-row'), want.tasks);
      await expectCount(page.getByTestId('eval-matrix-config'), want.configs.length);
      await expectCount(page.getByTestId('eval-cell'), want.tasks * want.configs.length);
      await eventually(async () => expect((await page.getByTestId('eval-matrix-config').allTextContents()).map((t) => t.trim()).sort()).toEqual(sorted));

      // The plot: an image from a data: URL (never SVG markup in the page) that the browser decoded.
      const plot = page.getByTestId('eval-plot');
      await expectVisible(plot);
      expect(await plot.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
      expect((await plot.getAttribute('alt')) ?? '').toMatch(/^Pass rate against cost/);
      await eventually(async () => expect(await page.evaluate('document.querySelector(\'[data-testid="eval-plot"]\').naturalWidth')).toBeGreaterThan(0));
      await expectCount(page.locator('main svg'), 0);

      await expectNoSeriousA11yViolations(page, `eval-${width}`);
      await eventually(() => expectNoHorizontalOverflow(page));
      await savePageShot(page, 'eval');
    }
  } finally {
    if (before) await page.setViewportSize(before);
  }
}
