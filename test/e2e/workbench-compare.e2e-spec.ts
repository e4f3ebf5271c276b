import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { describeViolations, axeViolations, savePageShot } from './support/workbench-a11y';
import { eventually, expectCount, expectText, expectTextContaining, expectVisible } from './support/workbench-expect';
import { enterToken, openWithToken, workbench as wb } from './support/workbench-pages';
import { submitPasted, workbenchSuite } from './support/workbench-suite';

jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '../..');
const DD_DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const TOKEN = `compare-${randomBytes(12).toString('hex')}`;
const RUN_ENDS_MS = 180_000;

/** The Run A and Run B cells of a compare table's row (after its row header). */
const sides = (row: Locator) => ({ a: row.getByRole('cell').nth(0), b: row.getByRole('cell').nth(1) });

/**
 * Compare (issue 22), in a real Chromium against the four services: the build demo run twice,
 * both ticked on the runs list (one with the mouse, one with the keyboard), "Compare selected"
 * opens /compare?a=<older>&b=<newer>, which shows the two runs' ids and verdicts side by side, their
 * usage as the api counts it, the calls per role as the database has them, and the reports' line
 * diff (two runs of one demo differ at least in the report's title line, which names the run). The
 * page survives a reload; a build against the panel demo shows the panel's scores from its
 * workflow's rows; a run page's "Compare with another run" leads there too; and the page passes axe
 * at 1280 and 390 px without a horizontal scroll.
 */
describe('the workbench compare page', () => {
  const suite = workbenchSuite({ env: { API_TOKENS: `compare:${TOKEN}:write` } });

  const runDetail = async (id: string) => {
    const res = await fetch(`${suite.pipeline.api}/v1/runs/${id}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as { verdict: string | null; usage: { calls: number; tokens: number }; panel?: { recommendation: string | null; scores: Record<string, number> } };
  };

  let first = '';
  let second = '';

  it('picks two runs on the runs list and shows them side by side: verdicts, usage, calls per role and the report diff', async () => {
    const page = await openWithToken(suite.context, `${suite.pipeline.api}/new`, TOKEN, suite.pageErrors);
    first = await submitPasted(page, DD_DEMO, { sandboxProcess: true });
    await page.goto(`${suite.pipeline.api}/new`);
    second = await submitPasted(page, DD_DEMO, { sandboxProcess: true });
    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);
    await eventually(async () => {
      const rows = await suite.pipeline.sql<{ status: string }>(`SELECT status FROM runs WHERE id = ANY($1) ORDER BY id`, [[first, second]]);
      expect(rows.map((r) => r.status)).toEqual(['done', 'done']);
    }, RUN_ENDS_MS);

    // The runs list: a labelled Compare tick per run; the button waits for exactly two.
    await page.goto(`${suite.pipeline.api}/runs`);
    const compare = wb.button(page, 'Compare selected');
    await expectVisible(page.getByRole('table').getByRole('link', { name: first }));
    expect(await compare.isDisabled()).toBe(true);
    const tickFirst = page.getByRole('checkbox', { name: `Compare ${first}`, exact: true });
    const tickSecond = page.getByRole('checkbox', { name: `Compare ${second}`, exact: true });
    // The newer run is ticked first, with the keyboard; A is still the older one.
    await tickSecond.focus();
    await page.keyboard.press('Space');
    await eventually(async () => expect(await tickSecond.isChecked()).toBe(true));
    expect(await compare.isDisabled()).toBe(true);
    await expectTextContaining(page.locator('#compare-hint'), '1 picked');
    await tickFirst.click();
    await eventually(async () => expect(await compare.isDisabled()).toBe(false));
    await compare.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/compare\?/, { timeout: 60_000 });
    const url = new URL(page.url());
    expect(url.pathname).toBe('/compare');
    expect([url.searchParams.get('a'), url.searchParams.get('b')]).toEqual([first, second]);
    await expectVisible(wb.heading(page, 'Compare runs'));

    // Who each side is, and its verdict.
    const [dA, dB] = await Promise.all([runDetail(first), runDetail(second)]);
    expect(dA.verdict).toBeTruthy();
    const runA = page.getByTestId('compare-run-a');
    const runB = page.getByTestId('compare-run-b');
    await expectVisible(runA.getByRole('link', { name: first, exact: true }));
    await expectVisible(runB.getByRole('link', { name: second, exact: true }));
    await expectText(page.getByTestId('verdict-a'), dA.verdict!);
    await expectText(page.getByTestId('verdict-b'), dB.verdict!);
    // Side by side at 1280 px: B's column starts to the right of A's, at the same height.
    const [boxA, boxB] = [await runA.boundingBox(), await runB.boundingBox()];
    expect(boxB!.x).toBeGreaterThan(boxA!.x + boxA!.width - 1);
    expect(Math.abs(boxB!.y - boxA!.y)).toBeLessThan(2);

    // Verdicts and scores: the verdict row, and the build's own rows from the registry.
    const facts = wb.section(page, 'Verdicts and scores');
    const verdictRow = sides(facts.locator('[data-testid="fact-row"][data-label="Verdict"]'));
    await expectText(verdictRow.a, dA.verdict!);
    await expectText(verdictRow.b, dB.verdict!);
    const synthesis = sides(facts.locator('[data-testid="fact-row"][data-label="Synthesis"]'));
    await expectText(synthesis.a, /^(ACCEPT|REVISE|REJECT|NEEDS_EVIDENCE|NEEDS_EXPERIMENT)( \(\d\.\d\d\))?/);
    await expectText(facts.locator('[data-testid="fact-row"][data-label="Rounds"] td').first(), /^\d+$/);

    // Usage, as GET /v1/runs/:id counts it, with B − A.
    const usage = wb.section(page, 'Usage');
    const calls = sides(usage.locator('[data-testid="usage-row"][data-label="Calls"]'));
    await expectText(calls.a, dA.usage.calls.toLocaleString('en-US'));
    await expectText(calls.b, dB.usage.calls.toLocaleString('en-US'));
    const tokens = sides(usage.locator('[data-testid="usage-row"][data-label="Tokens"]'));
    await expectText(tokens.a, dA.usage.tokens.toLocaleString('en-US'));
    await expectText(tokens.b, dB.usage.tokens.toLocaleString('en-US'));
    const delta = dB.usage.calls - dA.usage.calls;
    await expectText(usage.locator('[data-testid="usage-row"][data-label="Calls"] td').nth(2), delta === 0 ? '±0' : delta > 0 ? `+${delta}` : `−${-delta}`);

    // Calls per role: the proposer's calls in each run, as agent_calls has them; every role of either run has a row.
    const roles = await suite.pipeline.sql<{ role: string; run_id: string; n: number }>(`SELECT role, run_id, count(*)::int AS n FROM agent_calls WHERE run_id = ANY($1) GROUP BY role, run_id`, [[first, second]]);
    const count = (run: string, role: string) => roles.find((r) => r.run_id === run && r.role === role)?.n ?? 0;
    expect(count(first, 'proposer')).toBeGreaterThan(0);
    const perRole = wb.section(page, 'Calls per role');
    await expectCount(perRole.getByTestId('role-row'), new Set(roles.map((r) => r.role)).size);
    const proposer = perRole.locator('[data-testid="role-row"][data-role="proposer"]');
    await expectText(proposer.getByTestId('role-calls-a'), String(count(first, 'proposer')));
    await expectText(proposer.getByTestId('role-calls-b'), String(count(second, 'proposer')));

    // The reports' line diff: A's title names A's run, B's names B's.
    const diff = wb.section(page, 'Report differences');
    await expectVisible(diff.getByTestId('report-diff-stats'));
    await expectVisible(diff.getByLabel('Line diff of the two reports, A to B'));
    await expectTextContaining(diff.getByTestId('report-line-del').first(), `run ${first}`);
    await expectTextContaining(diff.getByTestId('report-line-add').first(), `run ${second}`);

    // The URL is the page: a reload shows the same two runs.
    await page.reload();
    await expectVisible(page.getByTestId('compare-run-a').getByRole('link', { name: first, exact: true }));
    await expectVisible(page.getByTestId('compare-run-b').getByRole('link', { name: second, exact: true }));
    await expectVisible(wb.section(page, 'Calls per role').locator('[data-testid="role-row"][data-role="proposer"]'));
    await page.close();
  });

  it("lines a build up against a panel: the panel's judges' scores from its workflow's rows, — where the build has none, both runs' roles", async () => {
    expect(first).toBeTruthy();
    const page = await openWithToken(suite.context, `${suite.pipeline.api}/new`, TOKEN, suite.pageErrors);
    const panel = await submitPasted(page, PANEL_DEMO);
    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);
    const detail = await runDetail(panel);
    expect(Object.keys(detail.panel!.scores)).toHaveLength(5);
    await page.goto(`${suite.pipeline.api}/compare?a=${first}&b=${panel}`);
    const facts = wb.section(page, 'Verdicts and scores');
    const row = (label: string) => sides(facts.locator(`[data-testid="fact-row"][data-label="${label}"]`));
    await expectText(row('Recommendation').b, detail.panel!.recommendation!);
    await expectText(row('Recommendation').a, '—');
    // Each judge's score as the api has it (after the re-vote: "before → after" when it moved).
    for (const [judge, score] of Object.entries(detail.panel!.scores)) {
      await expectText(row(`Score: ${judge}`).b, new RegExp(`(^| → )${score}$`));
      await expectText(row(`Score: ${judge}`).a, '—');
    }
    const mean = Object.values(detail.panel!.scores).reduce((x, y) => x + y, 0) / 5;
    await expectText(row('Mean score').b, mean.toFixed(1));
    // The build's own rows are the build's alone.
    await expectText(row('Rounds').b, '—');
    await expectText(row('Rounds').a, /^\d+$/);
    // Calls per role: the build's proposer on A only, the panel's judges on B only.
    const perRole = wb.section(page, 'Calls per role');
    const proposer = perRole.locator('[data-testid="role-row"][data-role="proposer"]');
    await expectText(proposer.getByTestId('role-calls-b'), '—');
    await expectText(proposer.getByTestId('role-calls-a'), /^[1-9]/);
    const [{ n }] = await suite.pipeline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM agent_calls WHERE run_id = $1 AND role = 'vc'`, [panel]);
    expect(n).toBeGreaterThan(0);
    const vc = perRole.locator('[data-testid="role-row"][data-role="vc"]');
    await expectText(vc.getByTestId('role-calls-b'), String(n));
    await expectText(vc.getByTestId('role-calls-a'), '—');
    await expectVisible(wb.section(page, 'Report differences').getByTestId('report-diff-stats'));

    // From the panel's run page: "Compare with another run" names it A, and a pick of the newest runs makes the build B.
    await page.goto(`${suite.pipeline.api}/runs/${panel}`);
    await page.getByRole('link', { name: 'Compare with another run', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/compare' && u.searchParams.get('a') === panel && !u.searchParams.has('b'), { timeout: 60_000 });
    await expectVisible(page.getByTestId('compare-run-a').getByRole('link', { name: panel, exact: true }));
    const pick = page.getByRole('region', { name: 'Run B: pick one', exact: true });
    expect(await pick.getByRole('link', { name: panel, exact: true }).count()).toBe(0);
    await pick.getByRole('link', { name: first, exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('a') === panel && u.searchParams.get('b') === first, { timeout: 60_000 });
    await expectVisible(page.getByTestId('compare-run-b').getByRole('link', { name: first, exact: true }));
    await expectText(row('Recommendation').a, detail.panel!.recommendation!);
    await expectText(row('Recommendation').b, '—');
    await page.close();
  });

  it('passes axe (no serious or critical violation) at 1280 and 390 px, stacks the two runs on a phone without a sideways scroll, and is photographed', async () => {
    expect(first && second).toBeTruthy();
    const failures: string[] = [];
    for (const width of [1280, 390]) {
      const ctx = await suite.browser.newContext({ viewport: { width, height: 900 } });
      try {
        const page = await ctx.newPage();
        page.on('pageerror', (e) => suite.pageErrors.push(`${page.url()}: ${e.message}`));
        await page.goto(`${suite.pipeline.api}/compare?a=${first}&b=${second}`);
        await enterToken(page, TOKEN);
        await expectVisible(wb.section(page, 'Report differences').getByTestId('report-diff-stats'));
        await expectVisible(wb.section(page, 'Calls per role').locator('[data-testid="role-row"][data-role="proposer"]'));
        failures.push(...describeViolations(await axeViolations(page), `compare (${page.url()} at ${width} px)`));
        const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
        expect(overflow).toBeLessThanOrEqual(0);
        const [boxA, boxB] = [await page.getByTestId('compare-run-a').boundingBox(), await page.getByTestId('compare-run-b').boundingBox()];
        if (width === 390) expect(boxB!.y).toBeGreaterThanOrEqual(boxA!.y + boxA!.height - 1);
        else expect(boxB!.x).toBeGreaterThan(boxA!.x + boxA!.width - 1);
        const shot = await savePageShot(page, 'compare');
        expect(existsSync(shot)).toBe(true);
        // One side named (a run page's "Compare with another run"): the pick of the other.
        await page.goto(`${suite.pipeline.api}/compare?a=${first}`);
        await expectVisible(page.getByRole('region', { name: 'Run B: pick one', exact: true }).getByRole('link', { name: second, exact: true }));
        failures.push(...describeViolations(await axeViolations(page), `compare pick (${page.url()} at ${width} px)`));
        expect((await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number).toBeLessThanOrEqual(0);
        expect(existsSync(await savePageShot(page, 'compare-pick'))).toBe(true);
      } finally {
        await ctx.close();
      }
    }
    expect(failures).toEqual([]);
  });
});
