import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { waitFor } from '@roundtable/testing';
import { panelOnVersion, SWAPBOARD_WORKSHEET } from './support/idea-worksheets';
import { expectNoSeriousA11yViolations, savePageShot } from './support/workbench-a11y';
import { eventually, expectCount, expectText, expectTextContaining, expectVisible } from './support/workbench-expect';
import { openWithToken, workbench as wb } from './support/workbench-pages';
import { workbenchSuite } from './support/workbench-suite';
import { backtestRepo } from './support/backtest-repo';

jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(REPO, 'examples/experiment-backtest');
const PROPOSER_CASSETTE = path.join(REPO, 'test/fixtures/idea-experiment/proposer.cassette.yaml');
const PASS_CASSETTE = path.join(EXAMPLE, 'cassette-pass.yaml');
const TOKEN = `idea-experiment-${randomBytes(12).toString('hex')}`;
const DECIDED_MS = 200_000;

/** The api with this file's token: the status and the JSON answer. */
async function call<T>(api: string, method: 'GET' | 'POST', urlPath: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${api}${urlPath}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

/**
 * An idea's recommended experiment from the workbench (issue 24), in a real Chromium against the
 * four services, the method in the sandbox: a panel on the Swapboard worksheet ends ITERATE (the
 * panel demo's cassette); on the idea page, Draft the experiment — refused first with a
 * preregistration in the file (the form says so) and a repository that is not one (the api's 400
 * names repo) — then drafted with a temp git copy of examples/experiment-backtest and the providers
 * test/e2e/idea-experiment.e2e-spec.ts uses; the page links the experiment and its run; on the run
 * page the draft waits at the "preregistration" gate, a person approves it there, it runs to PASS,
 * and the idea's ledger lists the experiment_result entry linking the experiment. Axe and
 * screenshots at 1280 and 390 px of the idea page with the form open and of the approval form.
 */
describe("an idea's recommended experiment, drafted from the workbench", () => {
  const suite = workbenchSuite({ env: { API_TOKENS: `scientist:${TOKEN}:approve` }, pipeline: { providerQueues: 'replay,replay_x,replay_a,replay_b' } });
  let tmp: string;
  let repo: string;

  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-wb-idea-experiment-'));
    repo = path.join(tmp, 'backtest');
    backtestRepo(repo);
  });

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const settings = (repoPath: string) =>
    toYaml({
      repo: repoPath,
      domain: 'trading',
      providers: {
        replay_x: { type: 'replay', cassette: PROPOSER_CASSETTE },
        replay_a: { type: 'replay', cassette: PASS_CASSETTE },
        replay_b: { type: 'replay', cassette: PASS_CASSETTE },
      },
      proposer: { provider: 'replay_x', model: 'claude-sonnet-4-5' },
      interpreter: { provider: 'replay_a', model: 'claude-sonnet-4-5' },
      critic: { provider: 'replay_b', model: 'gpt-5' },
    });

  it('drafts the experiment from the idea page, approves the draft at its gate on the run page, and shows the PASS in the idea\'s ledger', async () => {
    const { pipeline } = suite;
    const created = await call<{ id: string }>(pipeline.api, 'POST', '/v1/ideas', SWAPBOARD_WORKSHEET);
    expect(created.status).toBe(201);
    const ideaId = created.body.id;
    const panel = await call<{ id: string }>(pipeline.api, 'POST', '/v1/runs', panelOnVersion(ideaId, 1));
    expect(panel.status).toBe(202);
    const ended = await waitFor(
      `panel ${panel.body.id} to end`,
      async () => {
        const { body } = await call<{ status: string; workflow: string }>(pipeline.api, 'GET', `/v1/runs/${panel.body.id}`);
        return ['done', 'failed', 'halted', 'cancelled'].includes(body.status) ? body : undefined;
      },
      120_000,
      200,
    );
    expect(ended).toMatchObject({ status: 'done', workflow: 'panel' });

    const page = await openWithToken(suite.context, `${pipeline.api}/ideas/${ideaId}`, TOKEN, suite.pageErrors, { untilRoleKnown: true });
    const section = wb.section(page, 'Experiment');
    await expectVisible(section);
    await section.getByRole('button', { name: 'Draft the experiment', exact: true }).click();
    const form = page.getByRole('form', { name: 'Draft the experiment' });
    await expectVisible(form);
    await expectTextContaining(form.getByLabel('Panel'), `${panel.body.id} — ITERATE on version 1`);
    // Prefilled from the backtest example, without a preregistration.
    const file = form.getByLabel(/^Experiment settings/);
    await eventually(async () => expect(await file.inputValue()).toContain('proposer:'));
    expect(await file.inputValue()).not.toContain('preregistration:');

    // What the idea gives is refused at the field, before the api is asked.
    await file.fill(`${settings(repo)}preregistration: {}\n`);
    await form.getByRole('button', { name: 'Draft and start its run' }).click();
    await expectTextContaining(form.locator('#experiment-file-issue'), 'leave out preregistration');
    // The api's 400 names the field: a repository that is no git repository.
    await file.fill(settings(tmp));
    await form.getByRole('button', { name: 'Draft and start its run' }).click();
    await expectTextContaining(form.getByTestId('act-outcome'), 'repo');
    await expectTextContaining(form.getByTestId('act-outcome'), 'is not a git repository');

    await file.fill(settings(repo));
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoSeriousA11yViolations(page, `idea-experiment-form-${width}`);
      await savePageShot(page, 'idea-experiment-form');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await form.getByRole('button', { name: 'Draft and start its run' }).click();
    const drafted = page.getByTestId('experiment-drafted');
    await expectVisible(drafted);
    const [experimentId, runId] = (await drafted.getByRole('link').allTextContents()).map((t) => t.trim());
    expect(experimentId).toMatch(/^exp_/);
    expect(runId).toMatch(/^run_/);
    await expectTextContaining(drafted, 'preregistration gate');

    // On the run page the draft waits at its gate; the approval form shows it.
    await drafted.getByRole('link', { name: runId, exact: true }).click();
    await page.waitForURL((u) => u.pathname === `/runs/${runId}`);
    await expectText(wb.runStatus(page), 'awaiting_approval', 120_000);
    const approval = page.getByRole('form', { name: 'Approval at the preregistration gate' });
    await expectVisible(approval);
    await expectTextContaining(approval.getByTestId('gate-subject'), 'Moving-average crossover on a trending series, out of sample');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoSeriousA11yViolations(page, `idea-experiment-approval-${width}`);
      await savePageShot(page, 'idea-experiment-approval');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    await expectText(wb.runStatus(page), 'done', DECIDED_MS).catch(async (e: unknown) => {
      const run = await call(pipeline.api, 'GET', `/v1/runs/${runId}`);
      throw new Error(`the run did not end done: ${JSON.stringify(run.body)}; ${(e as Error).message}\n${pipeline.logs().slice(-4000)}`);
    });
    const decided = await call<{ status: string; decision: string }>(pipeline.api, 'GET', `/v1/experiments/${experimentId}`);
    expect(decided.body).toMatchObject({ status: 'decided', decision: 'PASS' });

    // Back on the idea page: the decision is in the ledger, linking the experiment and its run.
    await page.goto(`${pipeline.api}/ideas/${ideaId}`);
    const entry = page.locator('[data-testid="evidence-entry"]').filter({ has: page.locator('[data-kind="experiment_result"]') });
    await eventually(async () => {
      await page.reload();
      await expectCount(entry, 1);
    }, 60_000);
    await expectTextContaining(entry, 'experiment result');
    await expectTextContaining(entry, `Experiment ${experimentId}`);
    await expectTextContaining(entry, 'decided PASS');
    await expectVisible(entry.getByRole('link', { name: experimentId, exact: true }));
    await expectVisible(entry.getByRole('link', { name: runId, exact: true }));
    // The idea's experiments are listed with their decision.
    await expectTextContaining(page.locator(`[data-testid="idea-experiment"][data-experiment="${experimentId}"]`), 'decided, PASS');
    await savePageShot(page, 'idea-experiment-ledger');
    await page.close();
  });
});
