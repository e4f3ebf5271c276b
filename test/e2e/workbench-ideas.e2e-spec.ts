import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expectNoSeriousA11yViolations, savePageShot } from './support/workbench-a11y';
import { eventually, expectCount, expectText, expectTextContaining, expectVisible } from './support/workbench-expect';
import { openWithToken, workbench as wb } from './support/workbench-pages';
import { workbenchSuite } from './support/workbench-suite';

jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '../..');
const TOKEN = `ideas-${randomBytes(12).toString('hex')}`;
const READ_TOKEN = `ideas-read-${randomBytes(12).toString('hex')}`;
const RUN_ENDS_MS = 180_000;

/**
 * The panel demo's own idea as a worksheet (as test/e2e/ideas.e2e-spec.ts has it): its cassette's
 * guards look at the debate's evidence blocks and baselines, not the idea's words, and this text
 * is what it was recorded for.
 */
const WORKSHEET = {
  title: 'Swapboard',
  problem: 'Nurses arrange shift swaps in a WhatsApp group per ward and wait for a paper approval.',
  target_user: 'ward nurses and ward managers in NHS hospital trusts',
  solution: "A phone app where nurses on one ward post the shifts they cannot work and claim each other's; the manager approves with one tap.",
  assumptions: 'ward managers will approve swaps in an app',
  open_risks: 'the roster vendor controls write access',
};
const EDITED_PROBLEM = 'Swaps are arranged in WhatsApp and take a median of two days to approve on paper.';

/** The page never scrolls sideways (the 390 px phone). */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scroll, client } = (await page.evaluate('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })')) as { scroll: number; client: number };
  expect(scroll).toBeLessThanOrEqual(client);
}

/**
 * Ideas in the workbench (issue 23), in a real Chromium against the four services: an idea made
 * from the New idea form (a too-long title first, refused at its field), edited into version 2,
 * the ledger, the diff of 1 and 2, a panel run on version 2 from the idea page to done on the
 * panel demo's cassette, version 2 then shown locked by that run (and an edit of it the api's
 * 409), a read token seeing no acts; axe and no sideways scroll at 1280 and 390 px.
 */
describe('ideas in the workbench', () => {
  const suite = workbenchSuite({ env: { API_TOKENS: `ideator:${TOKEN}:write,reader:${READ_TOKEN}:read`, EXAMPLES_DIR: path.join(REPO, 'examples') } });

  it('creates an idea, edits it to version 2, runs a panel on version 2 that locks it, refuses an edit of the locked version, and hands the panel on as a build', async () => {
    const { pipeline } = suite;
    const page = await openWithToken(suite.context, `${pipeline.api}/runs`, TOKEN, suite.pageErrors);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Ideas', exact: true }).click();
    await page.waitForURL(/\/ideas$/);
    await expectVisible(wb.heading(page, 'Ideas'));

    // The api's 400 is shown at the field it names.
    const create = page.getByRole('form', { name: 'New idea' });
    await create.getByLabel('Title', { exact: true }).fill('x'.repeat(20_001));
    await wb.button(page, 'Create idea').click();
    await expectTextContaining(create.locator('[data-field="title"] .field-issue'), 'title is longer than 20000 characters');
    await expect(create.getByLabel('Title', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');

    await create.getByLabel('Title', { exact: true }).fill(WORKSHEET.title);
    await create.getByLabel('Problem', { exact: true }).fill(WORKSHEET.problem);
    await create.getByLabel('Target user', { exact: true }).fill(WORKSHEET.target_user);
    await create.getByLabel('Solution', { exact: true }).fill(WORKSHEET.solution);
    await create.getByLabel('Assumptions (one a line)').fill(WORKSHEET.assumptions);
    await create.getByLabel('Open risks (one a line)').fill(WORKSHEET.open_risks);
    await create.getByLabel('No evidence yet').check();
    await wb.button(page, 'Create idea').click();
    await page.waitForURL(/\/ideas\/idea_[0-9a-f]{10}$/, { timeout: 60_000 });
    const ideaId = /\/ideas\/(idea_[0-9a-f]{10})$/.exec(page.url())![1];
    await expectText(page.getByTestId('shown-version'), 'Version 1');
    await expectText(page.getByTestId('readiness'), 'Version 1 is ready for a panel.');
    expect(await page.getByTestId('readiness-check').count()).toBeGreaterThan(0);
    await expectCount(page.locator('[data-testid="readiness-check"][data-ok="false"]'), 0);

    // Edit: a new version with the changed problem.
    const edit = page.getByRole('form', { name: 'Edit' });
    await edit.getByLabel('Problem', { exact: true }).fill(EDITED_PROBLEM);
    await wb.button(page, 'Save as a new version').click();
    await page.waitForURL((u) => u.pathname === `/ideas/${ideaId}` && u.search === '?version=2', { timeout: 60_000 });
    await expectText(page.getByTestId('shown-version'), 'Version 2');
    await expectTextContaining(page.locator('.worksheet [data-key="problem"]'), EDITED_PROBLEM);
    // Version 1 stays as it was; the diff of 1 and 2 says only the problem changed.
    const diff = wb.section(page, 'Diff');
    await expectText(diff.getByTestId('diff-summary'), 'Changed from version 1 to 2: Problem.');
    await expectTextContaining(diff.locator('[data-testid="diff-row"][data-field="problem"][data-changed="true"]'), EDITED_PROBLEM);
    await expectTextContaining(diff.locator('[data-testid="diff-row"][data-field="problem"]'), WORKSHEET.problem);
    // Only what changed, unless the unchanged are asked for.
    await expectCount(diff.getByTestId('diff-row'), 1);
    await diff.getByLabel('Show unchanged fields').check();
    await expectCount(diff.getByTestId('diff-row'), 8);
    await expectCount(diff.locator('[data-testid="diff-row"][data-changed="true"]'), 1);

    // The ledger: an entry, then one that corrects it; the first is marked superseded.
    const log = page.getByRole('form', { name: 'Log evidence' });
    const logEntry = async (claim: string, supersedes = '') => {
      await log.getByLabel('Claim').fill(claim);
      await log.getByLabel('Source').fill('ward log');
      await log.getByLabel('Kind').selectOption('metric');
      await log.getByLabel('Date').fill('2026-03-31');
      if (supersedes) await log.getByLabel('Supersedes').selectOption(supersedes);
      await wb.button(page, 'Log entry').click();
    };
    await logEntry('one ward logged 13 swaps in March');
    await expectCount(page.getByTestId('evidence-entry'), 1);
    await logEntry('one ward logged 31 swaps in March', 'E1');
    await expectCount(page.getByTestId('evidence-entry'), 2);
    await expectText(page.locator('[data-testid="evidence-entry"][data-id="E1"] [data-testid="superseded"]'), 'superseded by E2');
    await expectCount(page.locator('[data-testid="evidence-entry"][data-id="E2"] [data-testid="superseded"]'), 0);
    await expectText(page.getByTestId('shown-version'), 'Version 2');

    // A panel on version 2, from the idea page, to its end.
    await wb.button(page, 'Run a panel on version 2').click();
    await page.waitForURL(/\/runs\/run_[a-z0-9]+$/, { timeout: 60_000 });
    const runId = /\/runs\/(run_[a-z0-9]+)$/.exec(page.url())![1];
    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);
    // The judges were given version 2's problem.
    const [roast] = await pipeline.sql<{ messages: string }>(`SELECT messages::text AS messages FROM agent_calls WHERE run_id = $1 AND role = 'vc' ORDER BY seq LIMIT 1`, [runId]);
    expect(roast.messages).toContain('median of two days');

    // Back on the list and the idea: version 2 is locked by that run, which it links to.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Ideas', exact: true }).click();
    const row = page.getByTestId('idea-row').filter({ hasText: ideaId });
    await expectVisible(row);
    await expectText(row.locator('td[data-label="Latest version"]'), '2');
    await expectText(row.locator('td[data-label="Locked versions"]'), '2');
    await expectText(row.locator('td[data-label="Panels"]'), '1');
    await row.getByRole('link', { name: 'Swapboard' }).click();
    await page.waitForURL((u) => u.pathname === `/ideas/${ideaId}`, { timeout: 60_000 });
    await expectText(page.getByTestId('shown-version'), 'Version 2');
    await expectText(page.getByTestId('shown-lock'), `locked by ${runId}`);
    const v2 = page.locator('[data-testid="idea-version"][data-version="2"]');
    await expectTextContaining(v2.getByTestId('version-lock'), `locked by ${runId}`);
    await expectVisible(v2.getByRole('link', { name: runId }).first());
    await expectText(page.locator('[data-testid="idea-version"][data-version="1"] [data-testid="version-lock"]'), 'open for edits');
    await expectTextContaining(page.getByLabel('Version', { exact: true }), `Version 2 (latest) — locked by ${runId}`);
    // The idea remembers the panel: its verdict on version 2, as the next panel on it will be shown.
    await expectTextContaining(page.getByTestId('idea-memory'), `${runId} on version 2`);

    // An edit aimed at version 2: the api's 409, said on the form; no version 3 is written.
    await page.getByRole('form', { name: 'Edit' }).getByLabel('Problem', { exact: true }).fill('Something else.');
    await wb.button(page, 'Save as a new version').click();
    await expectTextContaining(page.getByRole('form', { name: 'Edit' }).getByTestId('act-outcome'), `version 2 is locked: panel run ${runId}`);
    const [{ n }] = await pipeline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM idea_versions WHERE idea_id = $1`, [ideaId]);
    expect(n).toBe(2);

    // Hand on: the panel's ITERATE as a build (its objective from the synthesis), whose page links back.
    const handoff = page.getByRole('form', { name: 'Hand on as a build' });
    await eventually(async () => expect(await handoff.getByLabel(/^Build settings/).inputValue()).toContain('providers'));
    await handoff.getByRole('button', { name: 'Hand on as a build' }).click();
    await page.waitForURL((u) => /^\/runs\/run_[a-z0-9]+$/.test(u.pathname) && !u.pathname.endsWith(runId), { timeout: 60_000 });
    const build = /\/runs\/(run_[a-z0-9]+)$/.exec(page.url())![1];
    await expectTextContaining(page.getByTestId('handed-off-from'), `idea ${ideaId} version 2, panel ${runId} (ITERATE)`);
    const [handed] = await pipeline.sql<{ objective: string }>(`SELECT p.objective FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.id = $1`, [build]);
    expect(handed.objective).toMatch(/^Build the smallest thing that runs the panel's recommended experiment for "Swapboard"/);
    await page.close();

    // A read token sees the idea and no acts.
    const reader = await openWithToken(suite.context, `${pipeline.api}/ideas/${ideaId}`, READ_TOKEN, suite.pageErrors, { untilRoleKnown: true });
    await expectText(reader.getByTestId('shown-version'), 'Version 2');
    await expectVisible(wb.section(reader, 'Evidence ledger'));
    await expectCount(reader.getByRole('form'), 0);
    await expectCount(reader.getByRole('button', { name: /Run a panel/ }), 0);
    await reader.goto(`${pipeline.api}/ideas`);
    await expectVisible(reader.getByTestId('idea-row').first());
    await expectCount(reader.getByRole('form', { name: 'New idea' }), 0);
    await reader.close();

    // A version that is not ready: the api refuses the panel, and each failing check is listed.
    const draft = await fetch(`${pipeline.api}/v1/ideas`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ ...WORKSHEET, problem: 'TBD', assumptions: [], open_risks: [WORKSHEET.open_risks] }),
    });
    expect(draft.status).toBe(201);
    const draftId = ((await draft.json()) as { id: string }).id;
    const drafter = await openWithToken(suite.context, `${pipeline.api}/ideas/${draftId}`, TOKEN, suite.pageErrors, { untilRoleKnown: true });
    await expectTextContaining(drafter.getByTestId('readiness'), 'Version 1 is not ready for a panel');
    await expectCount(drafter.locator('[data-testid="readiness-check"][data-ok="false"]'), 3);
    await wb.button(drafter, 'Run a panel on version 1').click();
    const failing = drafter.getByTestId('failing-checks');
    await expectVisible(failing);
    await expectCount(failing.getByRole('listitem'), 3);
    for (const check of ['problem_filled', 'evidence_cited', 'assumptions_listed']) await expectTextContaining(failing, `${check}:`);
    await expectTextContaining(drafter.getByTestId('act-outcome'), 'Version 1 is not ready for a panel.');
    expect(drafter.url()).toBe(`${pipeline.api}/ideas/${draftId}`);
    const [{ runs }] = await pipeline.sql<{ runs: number }>(`SELECT count(*)::int AS runs FROM runs WHERE idea_id = $1`, [draftId]);
    expect(runs).toBe(0);
    await drafter.close();

    // Both pages pass axe and do not scroll sideways, at both widths.
    for (const width of [1280, 390]) {
      const ctx = await suite.browser.newContext({ viewport: { width, height: 900 } });
      try {
        const shot = await openWithToken(ctx, `${pipeline.api}/ideas`, TOKEN, suite.pageErrors, { untilRoleKnown: true });
        await expectVisible(shot.getByTestId('idea-row').first());
        await expectVisible(shot.getByRole('form', { name: 'New idea' }));
        await expectNoSeriousA11yViolations(shot, `ideas-${width}`);
        await eventually(() => expectNoHorizontalOverflow(shot));
        await savePageShot(shot, 'ideas');
        await shot.goto(`${pipeline.api}/ideas/${ideaId}?version=1`);
        await expectText(shot.getByTestId('shown-version'), 'Version 1');
        await expectVisible(shot.getByRole('form', { name: 'Edit' }));
        await expectVisible(shot.getByTestId('evidence-entry').first());
        await expectText(shot.getByTestId('diff-summary'), 'Versions 1 and 1 are the same.');
        await shot.getByLabel('To', { exact: true }).selectOption('2');
        await expectVisible(shot.locator('[data-testid="diff-row"][data-field="problem"]'));
        await expectNoSeriousA11yViolations(shot, `idea-${width}`);
        await eventually(() => expectNoHorizontalOverflow(shot));
        await savePageShot(shot, 'idea');
      } finally {
        await ctx.close();
      }
    }
  });
});
