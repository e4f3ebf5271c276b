import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { projectConfigFrom, TERMINAL_STATUSES, waitFor } from '@roundtable/testing';
import { expectNoSeriousA11yViolations, savePageShot } from './support/workbench-a11y';
import { eventually, expectText, expectTextContaining, expectVisible } from './support/workbench-expect';
import { openWithToken, workbench as wb } from './support/workbench-pages';
import { workbenchSuite } from './support/workbench-suite';

jest.setTimeout(240_000);

const REPO = path.resolve(__dirname, '../..');
const BUILD_DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const TOKEN = `audit-${randomBytes(12).toString('hex')}`;

async function submit(api: string, config: unknown): Promise<string> {
  const res = await fetch(`${api}/v1/runs`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(config) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** Polls the run (with this file's token) until it has ended. */
function ended(api: string, id: string): Promise<string> {
  return waitFor(
    `run ${id} to end`,
    async () => {
      const res = await fetch(`${api}/v1/runs/${id}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const { status } = (await res.json()) as { status: string };
      return (TERMINAL_STATUSES as readonly string[]).includes(status) ? status : undefined;
    },
    90_000,
    200,
  );
}

/** The page never scrolls sideways (the 390 px phone). */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, client } = (await page.evaluate('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })')) as { scroll: number; client: number };
  expect(scroll).toBeLessThanOrEqual(client);
}

/**
 * The workbench's Audit page (issue 25 §3), in a real Chromium against the four services: empty
 * before any run; after the build demo and the panel demo on the replay provider, the flags section
 * first, the demo's critic in the critics' table and the panel's five judges in the judges'; the
 * project filter kept in the URL; axe and no sideways scroll at 1280 and 390 px.
 */
describe('the bias audit in the workbench', () => {
  const suite = workbenchSuite({ env: { API_TOKENS: `auditor:${TOKEN}:write` } });

  it('shows the empty state, then the flags, the critics and the judges of the recorded runs', async () => {
    const { pipeline } = suite;
    const page = await openWithToken(suite.context, `${pipeline.api}/runs`, TOKEN, suite.pageErrors, { untilRoleKnown: true });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit', exact: true }).click();
    await page.waitForURL(/\/audit$/);
    await expectVisible(wb.heading(page, 'Bias audit'));
    await expectTextContaining(page.getByTestId('audit-empty'), 'No runs yet');

    const [build, panel] = [await submit(pipeline.api, projectConfigFrom(BUILD_DEMO)), await submit(pipeline.api, projectConfigFrom(PANEL_DEMO))];
    expect(await ended(pipeline.api, build)).toBe('done');
    expect(await ended(pipeline.api, panel)).toBe('done');

    await page.reload();
    await expectVisible(wb.heading(page, 'Flags'));
    // The flags come before the tables.
    const order = (await page.locator('main h2').allTextContents()).map((t) => t.trim());
    expect(order.slice(0, 3)).toEqual(['Flags', 'Critics', 'Panel judges']);
    // One build run and one panel are too few to cross any threshold.
    await expectVisible(page.getByTestId('audit-no-flags'));
    await expectVisible(page.getByTestId('audit-critic').first());
    await eventually(async () => expect(await page.getByTestId('audit-judge').count()).toBe(5));

    // The project filter narrows it, and is kept in the URL: the panel demo's project has no critics.
    await page.getByLabel('Project', { exact: true }).fill('panel-demo');
    await eventually(async () => expect(new URL(page.url()).search).toBe('?project=panel-demo'));
    await expectText(page.locator('#section-critics + p'), 'No build critiques in these runs.');
    await page.getByLabel('Project', { exact: true }).fill('nobody');
    await expectTextContaining(page.getByTestId('audit-empty'), 'No runs of this project yet');

    for (const width of [1280, 390]) {
      const ctx = await suite.browser.newContext({ viewport: { width, height: 900 } });
      try {
        const shot = await openWithToken(ctx, `${pipeline.api}/audit`, TOKEN, suite.pageErrors, { untilRoleKnown: true });
        await expectVisible(shot.getByTestId('audit-judge').first());
        await expectNoSeriousA11yViolations(shot, `audit-${width}`);
        await eventually(() => expectNoHorizontalOverflow(shot));
        await savePageShot(shot, 'audit');
      } finally {
        await ctx.close();
      }
    }
  });
});
