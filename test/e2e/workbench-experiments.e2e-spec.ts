import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { projectConfigFrom } from '@roundtable/testing';
import { expectNoSeriousA11yViolations, savePageShot } from './support/workbench-a11y';
import { eventually, expectCount, expectText, expectTextContaining, expectVisible } from './support/workbench-expect';
import { openTab, openWithToken, workbench as wb } from './support/workbench-pages';
import { workbenchSuite } from './support/workbench-suite';
import { backtestRepo, headOf } from './support/backtest-repo';

jest.setTimeout(300_000);

const EXAMPLE = path.resolve(__dirname, '../../examples/experiment-backtest');
const TOKEN = `experiments-${randomBytes(12).toString('hex')}`;
const DECIDED_MS = 200_000;

/** The api with this file's write token: the status and the JSON answer. */
async function call<T>(api: string, method: 'GET' | 'POST', urlPath: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${api}${urlPath}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

/** The page never scrolls sideways (the 390 px phone). */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, client } = (await page.evaluate('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })')) as { scroll: number; client: number };
  expect(scroll).toBeLessThanOrEqual(client);
}

/**
 * Experiments in the workbench (issue 24), in a real Chromium against the four services: the
 * example's random-walk backtest preregistered through the api (its repository a temp git copy of
 * examples/experiment-backtest, the interpreter and the critic on two replay providers of the
 * example's KILL cassette), run from the experiment page's Run button, its method in the sandbox,
 * and KILLED by code: the decision on the experiment page and on the run page's Experiment tab;
 * a second Run refused (disabled, and the api's 409 when asked anyway); axe and no sideways
 * scroll at 1280 and 390 px.
 */
describe('experiments in the workbench', () => {
  const suite = workbenchSuite({ env: { API_TOKENS: `scientist:${TOKEN}:write` }, pipeline: { providerQueues: 'replay_a,replay_b' } });
  let tmp: string;
  let repo: string;

  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-wb-experiment-'));
    repo = path.join(tmp, 'backtest');
    backtestRepo(repo);
  });

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('runs a preregistered experiment from its page and shows the KILL code decided, on the experiment page and the run page', async () => {
    const { pipeline } = suite;
    const head = headOf(repo);
    const file = projectConfigFrom(path.join(EXAMPLE, 'experiment-kill.yaml'), { repo });
    const created = await call<{ id: string; prereg_hash: string }>(pipeline.api, 'POST', '/v1/experiments', file);
    expect(created.status).toBe(201);
    const id = created.body.id;

    const page = await openWithToken(suite.context, `${pipeline.api}/runs`, TOKEN, suite.pageErrors, { untilRoleKnown: true });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Experiments', exact: true }).click();
    await page.waitForURL(/\/experiments$/);
    await expectVisible(wb.heading(page, 'Experiments'));
    const row = page.locator(`[data-testid="experiment-row"][data-experiment="${id}"]`);
    await expectVisible(row);
    await row.getByRole('link', { name: 'Moving-average crossover on a driftless random walk, out of sample' }).click();
    await page.waitForURL((u) => u.pathname === `/experiments/${id}`);

    // Locked, pinned at the repository's HEAD, not run yet.
    await expectText(page.getByTestId('experiment-status'), 'locked');
    await expectText(page.getByTestId('experiment-hash'), created.body.prereg_hash.slice(0, 12));
    await expectText(page.getByTestId('experiment-commit'), head.slice(0, 12));
    await expectCount(page.getByTestId('prereg-criterion'), 4);
    await expectTextContaining(page.getByTestId('prereg-command'), 'python3 backtest.py prices-random-walk.csv');

    // Run, from the page; the decision comes at the run's end.
    await wb.button(page, 'Run').click();
    await expectVisible(page.getByTestId('run-started'));
    const runId = (await page.getByTestId('run-started').getByRole('link').textContent())!.trim();
    expect(runId).toMatch(/^run_/);
    await expectText(page.getByTestId('experiment-decision'), 'KILL', DECIDED_MS).catch(async (e: unknown) => {
      // A run that ended without a decision: say how, from the api, rather than only that the text never came.
      const run = await call(pipeline.api, 'GET', `/v1/runs/${runId}`);
      const events = await pipeline.sql<{ type: string; payload: unknown }>(`SELECT type, payload FROM run_events WHERE run_id = $1 ORDER BY sequence`, [runId]);
      throw new Error(`no KILL on the experiment page: run ${JSON.stringify(run.body)}; events ${JSON.stringify(events)}; ${(e as Error).message}`);
    });
    await expectText(page.getByTestId('experiment-status'), 'decided');
    await expectTextContaining(page.getByTestId('decided-by'), 'decided by code');
    await expectCount(page.getByTestId('criterion-row'), 4);
    for (const [c, holds] of [['S1', 'false'], ['S2', 'true'], ['F1', 'true'], ['F2', 'false']]) {
      await expect(page.locator(`[data-testid="criterion-row"][data-criterion="${c}"]`).getAttribute('data-holds')).resolves.toBe(holds);
    }
    await expectText(page.locator('[data-testid="metric-row"][data-metric="sharpe_oos"] td').last(), '-0.1608');
    await expectTextContaining(page.getByTestId('critic-review'), 'agrees');
    await expectTextContaining(page.getByTestId('experiment-report'), 'KILL');
    await expectCount(page.getByTestId('experiment-run'), 1);

    // It has its result: Run is disabled and says why; the api's 409 would say the same.
    await expect(wb.button(page, 'Run').isDisabled()).resolves.toBe(true);
    await expectTextContaining(page.getByTestId('run-blocked'), 'already has a result (decided KILL)');
    const again = await call<{ error: string; message: string }>(pipeline.api, 'POST', `/v1/experiments/${id}/run`, {});
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already has a result/);

    // The run page's Experiment tab shows the same decision, and links back.
    await page.getByTestId('experiment-run').getByRole('link', { name: runId, exact: true }).click();
    await page.waitForURL((u) => u.pathname === `/runs/${runId}`);
    await openTab(page, 'Experiment');
    await expectText(page.getByTestId('experiment-decision'), 'KILL');
    await expectTextContaining(page.getByTestId('decided-by'), 'decided by code');
    await expectCount(page.getByTestId('criterion-row'), 4);
    await expectText(page.getByTestId('method-exit-code'), '0');
    await expectTextContaining(page.getByTestId('experiment-link'), `Experiment ${id}`);
    // An experiment's run is not forked (its result is stored once): the ended run's Act list offers no Fork.
    await expectCount(page.getByRole('button', { name: 'Fork run' }), 0);

    // A preregistration altered in the store after its lock: Run is offered (nothing the page reads shows it), and the api's 409 is shown in an error card.
    const altered = await call<{ id: string }>(pipeline.api, 'POST', '/v1/experiments', file);
    expect(altered.status).toBe(201);
    await pipeline.sql(`UPDATE experiments SET prereg = jsonb_set(prereg, '{failure_criteria,0,expr}', '"sharpe_oos < -5"') WHERE id = $1`, [altered.body.id]);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Experiments', exact: true }).click();
    await page.locator(`[data-testid="experiment-row"][data-experiment="${altered.body.id}"]`).getByRole('link').first().click();
    await page.waitForURL((u) => u.pathname === `/experiments/${altered.body.id}`);
    await expectText(page.getByTestId('experiment-status'), 'locked');
    await wb.button(page, 'Run').click();
    await expectTextContaining(page.getByTestId('run-error'), 'it was altered after it was locked');
    await expectTextContaining(page.getByTestId('run-error'), 'experiment_altered');
    await expectCount(page.getByTestId('experiment-run'), 0);

    // Both pages pass axe and do not scroll sideways, at both widths.
    for (const width of [1280, 390]) {
      const ctx = await suite.browser.newContext({ viewport: { width, height: 900 } });
      try {
        // In-app navigation: the api answers index.html for /runs and /ideas but not yet for /experiments (apps/api workbench.handler.ts isPageRoute).
        const shot = await openWithToken(ctx, `${pipeline.api}/runs`, TOKEN, suite.pageErrors, { untilRoleKnown: true });
        await shot.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Experiments', exact: true }).click();
        await expectVisible(shot.getByTestId('experiment-row').first());
        await expectNoSeriousA11yViolations(shot, `experiments-${width}`);
        await eventually(() => expectNoHorizontalOverflow(shot));
        await savePageShot(shot, 'experiments');
        await shot.locator(`[data-testid="experiment-row"][data-experiment="${id}"]`).getByRole('link').first().click();
        await expectText(shot.getByTestId('experiment-decision'), 'KILL');
        await expectVisible(shot.getByTestId('experiment-report'));
        await expectNoSeriousA11yViolations(shot, `experiment-${width}`);
        await eventually(() => expectNoHorizontalOverflow(shot));
        await savePageShot(shot, 'experiment');
        await shot.goto(`${pipeline.api}/runs/${runId}/experiment`);
        await expectText(shot.getByTestId('experiment-decision'), 'KILL');
        await expectNoSeriousA11yViolations(shot, `run-experiment-${width}`);
        await eventually(() => expectNoHorizontalOverflow(shot));
        await savePageShot(shot, 'run-experiment');
      } finally {
        await ctx.close();
      }
    }
  });
});
