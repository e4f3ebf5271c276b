import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { saveScreenshot } from '@roundtable/testing';
import { expectNoSeriousA11yViolations, savePageShot } from './support/workbench-a11y';
import { eventually, expectText, expectVisible } from './support/workbench-expect';
import { openTab, openWithToken, workbench as wb } from './support/workbench-pages';
import { submitPasted, workbenchSuite } from './support/workbench-suite';

jest.setTimeout(300_000);

const DD_DEMO = path.resolve(__dirname, '../../examples/dd-demo/project.yaml');
const TOKEN = `fork-${randomBytes(12).toString('hex')}`;
const RUN_ENDS_MS = 180_000;
const EDITED = 'Pure Python, standard library only, no third-party dependencies';

/**
 * Fork in the workbench (issue 22), in a real Chromium against the four services: the build demo
 * run to done, then "run again from CRITIQUE" with one requirement edited. The fork runs to done,
 * its PROPOSE call is the original's, copied (no new PROPOSE call in the rows), its critic saw the
 * edited requirement, and the two runs link to each other.
 */
describe('fork a run from a stage in the workbench', () => {
  const suite = workbenchSuite({ env: { API_TOKENS: `forker:${TOKEN}:write` } });

  it('forks the done demo from CRITIQUE with an edited requirement: the proposal copied, the fork done, both linked', async () => {
    const { pipeline } = suite;
    const page = await openWithToken(suite.context, `${pipeline.api}/new`, TOKEN, suite.pageErrors);
    const original = await submitPasted(page, DD_DEMO, { sandboxProcess: true });
    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);

    const form = page.getByRole('form', { name: 'Fork' });
    await expectVisible(form);
    await form.getByLabel('Run again from').selectOption('CRITIQUE');
    const requirements = form.getByLabel('Requirements (one a line)');
    // The run's own requirements are there to edit.
    await eventually(async () => expect(await requirements.inputValue()).toContain('Pure Python, no third-party dependencies'));
    const edited = (await requirements.inputValue()).replace('Pure Python, no third-party dependencies', EDITED);
    await requirements.fill(edited);
    await saveScreenshot(page, 'fork-form');
    await form.getByRole('button', { name: 'Fork run' }).click();
    await page.waitForURL((u) => /\/runs\/run_[a-z0-9]+$/.test(u.pathname) && !u.pathname.endsWith(original), { timeout: 60_000 });
    const fork = /\/runs\/(run_[a-z0-9]+)$/.exec(page.url())![1];
    expect(fork).not.toBe(original);

    // The fork's page names its origin, and the run goes to done.
    const origin = page.getByTestId('forked-from');
    await expectVisible(origin);
    await eventually(async () => expect(await origin.textContent()).toContain(`${original} at CRITIQUE (1 calls copied)`));
    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);

    // From the rows: the one PROPOSE call is the original's P1, copied; nothing at PROPOSE was asked again.
    const rows = await pipeline.sql<{ label: string; stage: string; copied_from: string | null; messages: { content: string }[] }>(
      `SELECT label, stage, copied_from, messages FROM agent_calls WHERE run_id = $1 ORDER BY seq`,
      [fork],
    );
    const [originalP1] = await pipeline.sql<{ id: string }>(`SELECT id FROM agent_calls WHERE run_id = $1 AND label = 'P1'`, [original]);
    expect(rows.filter((r) => r.stage === 'PROPOSE').map((r) => [r.label, r.copied_from])).toEqual([['P1', originalP1.id]]);
    expect(rows.filter((r) => r.copied_from !== null)).toHaveLength(1);
    // The critic was asked live, with the edited requirement in its prompt.
    const critic = rows.find((r) => r.label === 'C1')!;
    expect(critic.copied_from).toBeNull();
    expect(critic.messages.map((m) => m.content).join('\n')).toContain(EDITED);
    // The copy is not the fork's usage: the header counts the calls it asked itself.
    const [{ live }] = await pipeline.sql<{ live: number }>(`SELECT count(*)::int AS live FROM agent_calls WHERE run_id = $1 AND copied_from IS NULL AND status IN ('completed', 'failed')`, [fork]);
    await eventually(async () => expect(await page.locator('.run-facts').textContent()).toContain(`Calls${live} ·`));
    await openTab(page, 'Calls');
    await expectText(page.getByTestId('copied-call'), `copied from ${originalP1.id}`);
    await saveScreenshot(page, 'fork-calls');

    // The original links to its fork.
    await page.getByTestId('forked-from').getByRole('link', { name: original }).click();
    await page.waitForURL(new RegExp(`/runs/${original}$`), { timeout: 60_000 });
    const forks = page.getByTestId('forks');
    await expectVisible(forks);
    await forks.getByRole('link', { name: fork }).click();
    await page.waitForURL(new RegExp(`/runs/${fork}$`), { timeout: 60_000 });
    await page.close();

    // The fork's page (its origin in the header, the Fork form of an ended run) passes axe at both widths.
    for (const width of [1280, 390]) {
      const ctx = await suite.browser.newContext({ viewport: { width, height: 900 } });
      try {
        const shot = await openWithToken(ctx, `${pipeline.api}/runs/${fork}`, TOKEN, suite.pageErrors);
        await expectText(wb.runStatus(shot), 'done');
        await expectVisible(shot.getByTestId('forked-from'));
        await expectVisible(shot.getByRole('form', { name: 'Fork' }));
        await expectNoSeriousA11yViolations(shot, `fork-run-${width}`);
        await savePageShot(shot, `fork-run-${width}`);
      } finally {
        await ctx.close();
      }
    }
  });
});
