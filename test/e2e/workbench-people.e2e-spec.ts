import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchBrowser, type Pipeline, projectConfigFrom, saveScreenshot, startPipeline, waitFor } from '@roundtable/testing';
import { FIXTURES, git, makeCalcRepo, mergePolicy } from './support/calc-repos';
import { expectText, expectTextContaining, expectVisible } from './support/workbench-expect';
import { openWithToken, workbench as wb } from './support/workbench-pages';

jest.setTimeout(420_000);

const REPO = path.resolve(__dirname, '../..');
const WEB_ROOT = path.join(REPO, 'dist/apps/web');
const WRITER = `wb-people-w-${randomBytes(12).toString('hex')}`;
const APPROVER = `wb-people-a-${randomBytes(12).toString('hex')}`;


/**
 * People in the loop from the workbench (issue 21): the criteria gate approved with AC1 reworded
 * and a criterion added in the browser (the cassette's engineer is guarded to see exactly them),
 * the merge gate approved after its solved checks and diffstat are shown (main gets the merge
 * commit), a write token told it needs an approve token, and a needs_input run answered from the
 * answer form, at phone width too.
 */
describe('the workbench approves at gates and answers questions (real services, Docker, git, Chromium)', () => {
  let pipeline: Pipeline;
  let browser: Browser;
  let context: BrowserContext;
  let tmp: string;
  let mergeable: string;
  const pageErrors: string[] = [];

  const makeRepo = makeCalcRepo;

  beforeAll(async () => {
    if (!existsSync(path.join(WEB_ROOT, 'index.html'))) throw new Error(`${WEB_ROOT}/index.html is missing: run \`node tools/build.mjs\` first (its web target)`);
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-wb-people-'));
    // As in people-in-the-loop.e2e-spec.ts: merges allowed under tmp/mergeable only.
    let policyFile: string;
    ({ mergeable, policyFile } = mergePolicy(tmp));
    pipeline = await startPipeline({
      env: { ROUNDTABLE_POLICY: policyFile, API_TOKENS: `writer:${WRITER}:write,approver:${APPROVER}:approve`, HOST: '127.0.0.1' },
      apiEnv: { WEB_ROOT },
    });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await pipeline?.stop();
    rmSync(tmp, { recursive: true, force: true });
    expect(pageErrors).toEqual([]);
  });

  const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  async function submit(file: string, repo: string, cassette?: string): Promise<string> {
    const cfg = projectConfigFrom(path.join(FIXTURES, file), { repo }) as { providers: Record<string, Record<string, unknown>> };
    if (cassette) cfg.providers.replay = { ...cfg.providers.replay, cassette };
    const res = await fetch(`${pipeline.api}/v1/runs`, { method: 'POST', headers: headers(WRITER), body: JSON.stringify(cfg) });
    const body = (await res.json()) as { id: string; message?: string };
    expect({ status: res.status, message: body.message }).toEqual({ status: 202, message: undefined });
    return body.id;
  }
  const detailOf = async (id: string) => (await (await fetch(`${pipeline.api}/v1/runs/${id}`, { headers: headers(WRITER) })).json()) as Record<string, unknown> & { status: string; gate: { name: string } | null };
  const until = (id: string, what: string, ok: (d: Awaited<ReturnType<typeof detailOf>>) => boolean, ms = 150_000) =>
    waitFor(
      `run ${id} to be ${what}`,
      async () => {
        const d = await detailOf(id);
        if (['failed', 'halted', 'cancelled'].includes(d.status)) throw new Error(`run ${id} ended ${d.status}: ${String(d.halt_reason)}\n${pipeline.logs()}`);
        return ok(d) ? d : undefined;
      },
      ms,
      200,
    );

  it('the criteria gate edited and approved, the merge gate approved after its checks are shown: done, and main has the merge commit', async () => {
    const repo = makeRepo(mergeable, 'approve');
    const mainBefore = git(repo, 'rev-parse', 'main').trim();
    const id = await submit('gates-project.yaml', repo);
    await until(id, 'at the criteria gate', (d) => d.status === 'awaiting_approval' && d.gate?.name === 'criteria');

    // A write token sees the gate and its criteria, and is told it needs an approve token: no buttons.
    const asWriter = await openWithToken(context, `${pipeline.api}/runs/${id}`, WRITER, pageErrors, { untilRoleKnown: true });
    const writerForm = asWriter.getByRole('form', { name: 'Approval at the criteria gate' });
    await expectVisible(writerForm);
    await expectTextContaining(asWriter.getByTestId('approve-role-needed'), 'approve role');
    expect(await writerForm.getByLabel('AC1', { exact: true }).inputValue()).toBe('mul(2, 3) == 6');
    expect(await wb.button(asWriter, 'Approve').count()).toBe(0);
    expect(await wb.button(asWriter, 'Reject').count()).toBe(0);
    await asWriter.close();

    const page = await openWithToken(context, `${pipeline.api}/runs/${id}`, APPROVER, pageErrors, { untilRoleKnown: true });
    await expectText(wb.runStatus(page), 'awaiting_approval');
    const criteria = page.getByRole('form', { name: 'Approval at the criteria gate' });
    await expectVisible(criteria);
    await criteria.getByLabel('AC1', { exact: true }).fill('mul(2, 3) == 6, an int for two ints');
    await wb.button(page, 'Add a criterion').click();
    await criteria.getByLabel('New criterion 4', { exact: true }).fill('mul(0.5, 4) == 2.0');
    await criteria.getByLabel('Note (optional)').fill('tighter AC1, one more');
    await saveScreenshot(page, 'people-criteria-gate');
    await wb.button(page, 'Approve').click();

    // The merge gate: the page shows what to look at before the buttons are pressed.
    const merge = page.getByRole('form', { name: 'Approval at the merge gate' });
    await expectVisible(merge, 150_000);
    const solved = merge.getByRole('list', { name: 'Solved checks' });
    for (const check of ['criteria_satisfied', 'tests_passed', 'no_open_blocker', 'synthesizer_accept']) {
      await expectTextContaining(solved.locator(`li[data-check="${check}"]`), /^ok /);
    }
    await expectTextContaining(merge.getByTestId('merge-diffstat'), /\d+ files?, \+\d+ −\d+/);
    await expectTextContaining(merge.getByTestId('merge-diffstat'), 'calc.py');
    await expectTextContaining(merge.getByTestId('merge-tests'), '0 failed');
    await saveScreenshot(page, 'people-merge-gate');
    await wb.button(page, 'Approve').click();
    await expectText(wb.runStatus(page), 'done', 150_000);

    const run = await until(id, 'done', (d) => d.status === 'done', 60_000);
    expect((run.criteria as { id: string; text: string }[]).map((c) => `${c.id}: ${c.text}`)).toEqual(expect.arrayContaining(['AC1: mul(2, 3) == 6, an int for two ints', 'AC4: mul(0.5, 4) == 2.0']));
    const parents = git(repo, 'rev-list', '--parents', '-n', '1', 'main').trim().split(' ');
    expect(parents.slice(1)).toEqual([mainBefore, git(repo, 'rev-parse', `roundtable/${id}`).trim()]);
    expect(git(repo, 'log', '-1', '--format=%B', 'main')).toMatch(/Approved-by: approver/);
    await page.close();
  });

  it('a needs_input run is answered from the answer form, at phone width, and ends done', async () => {
    const repo = makeRepo(path.join(tmp, 'readonly'), 'answer');
    // The cassette's guards expect the answer from anonymous (an open api); here the writer token answers.
    const cassette = path.join(tmp, 'answer.cassette.yaml');
    writeFileSync(cassette, readFileSync(path.join(FIXTURES, 'answer.cassette.yaml'), 'utf8').replaceAll('(from anonymous, a person)', '(from writer, a person)'));
    const id = await submit('answer-project.yaml', repo, cassette);
    await until(id, 'needs_input', (d) => d.status === 'needs_input');
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await openWithToken(phone, `${pipeline.api}/runs/${id}`, WRITER, pageErrors, { untilRoleKnown: true });
      await expectText(wb.runStatus(page), 'needs_input');
      const form = page.getByRole('form', { name: 'Answer Q1' });
      await expectVisible(form);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await form.getByLabel('Your answer').fill('an int for two ints');
      await saveScreenshot(page, 'people-answer-phone');
      await wb.button(page, 'Send').click();
      await expectText(wb.runStatus(page), 'done', 150_000);
      const run = await until(id, 'done', (d) => d.status === 'done', 60_000);
      expect(run.open_questions).toEqual([expect.objectContaining({ id: 'Q1', status: 'answered', answer: 'an int for two ints', answered_by: 'writer' })]);
      await page.close();
    } finally {
      await phone.close();
    }
  });
});
