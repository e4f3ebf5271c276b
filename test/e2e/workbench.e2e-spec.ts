import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, type Pipeline, saveScreenshot, startPipeline, startTcpProxy } from '@roundtable/testing';
import { expectNoSeriousA11yViolations, PAGE_SHOT_DIR, pageShots, savePageShot } from './support/workbench-a11y';
import { eventually, expectCount, expectText, expectTextContaining, expectVisible } from './support/workbench-expect';
import { callLinks, enterToken, lineOf, openTab, openWithToken, pastedProject, workbench as wb } from './support/workbench-pages';
import { panelDemoDebate, panelDemoJudges } from './support/workbench-panel-demo';
import { ProviderGate } from './support/workbench-provider-gate';

// Four services, a browser and three runs on two busy cores: minutes, not seconds.
jest.setTimeout(300_000);

const REPO = path.resolve(__dirname, '../..');
const WEB_ROOT = path.join(REPO, 'dist/apps/web');
const DD_DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const TOKENS = { write: `wb-write-${randomBytes(12).toString('hex')}`, read: `wb-read-${randomBytes(12).toString('hex')}` };
/** The five judges and what the demo's cassette has each say (roast score and evidence, re-vote). */
const JUDGES = panelDemoJudges();
/** Reaching a terminal status through the browser: four services and a pytest on two busy cores. */
const RUN_ENDS_MS = 180_000;

/**
 * The workbench (dist/apps/web, served by the api at /) in a real Chromium against the four
 * services as separate processes, with a write and a read token. The issue's "Must show", as a
 * person would do it: submit the build demo from the New run page and follow it live to ACCEPT,
 * reload mid-run and a second tab, a call's messages, the diff of dd.py; the panel demo's five
 * judges, fifteen debate turns and re-vote deltas; a bad project's error at its field; a read
 * token sees no act buttons. Screenshots of each page go to test-results/workbench/; then every
 * page (token screen, runs, New run, both run pages, a call) is run through axe-core's WCAG 2.x
 * A/AA rules at 1280 and 390 px (no serious or critical violation) and photographed to
 * test-results/screenshots/<page>-<width>.png.
 *
 * "Mid-run" is made, not raced: the replay provider's queue is paused (ProviderGate) once the
 * run has completed two calls, and the page is reloaded only once the run stands at the gate
 * (running, no call in flight, its next call's job waiting in the paused queue); the gate opens
 * after the reload's checks. A run that ended before it could be held fails the test.
 */
describe('the workbench in a browser, against the real services', () => {
  let pipeline: Pipeline;
  let gate: ProviderGate;
  let browser: Browser;
  let writer: BrowserContext;
  let reader: BrowserContext;
  const pageErrors: string[] = [];
  const runs = { build: '', panel: '' };

  beforeAll(async () => {
    if (!existsSync(path.join(WEB_ROOT, 'index.html'))) throw new Error(`${WEB_ROOT}/index.html is missing: run \`node tools/build.mjs\` first (its web target)`);
    pipeline = await startPipeline({
      env: { API_TOKENS: `writer:${TOKENS.write}:write,reader:${TOKENS.read}:read`, HOST: '127.0.0.1' },
      apiEnv: { WEB_ROOT },
    });
    gate = new ProviderGate(pipeline);
    browser = await launchBrowser();
    // One context a person: tabs of one context share cookies but, as in any browser, not sessionStorage.
    [writer, reader] = await Promise.all([browser.newContext(), browser.newContext()]);
  });

  afterAll(async () => {
    await browser?.close();
    await gate?.close();
    await pipeline?.stop();
  });

  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  it('submits the build demo from New run and follows it live; a reload mid-run shows the same run, still live', async () => {
    const page = await openWithToken(writer, `${pipeline.api}/new`, TOKENS.write, pageErrors);
    await expectVisible(wb.heading(page, 'New run'));
    await saveScreenshot(page, 'new-run');

    await page.getByLabel('Project file', { exact: true }).fill(pastedProject(DD_DEMO, { latencyMs: 1000, sandboxProcess: true }));
    await wb.button(page, 'Submit run').click();
    await page.waitForURL(/\/runs\/run_[a-z0-9]+$/, { timeout: 60_000 });
    runs.build = /\/runs\/(run_[a-z0-9]+)$/.exec(page.url())![1];
    await expectVisible(wb.heading(page, new RegExp(runs.build)));
    await expectText(wb.stream(page), 'live');

    // Two calls done (each takes 1 s at the provider, so the run is far from its end), the gate
    // shuts; the page shows the rows as they came, without a reload.
    await gate.shutAfter(runs.build, 2);
    let heldCalls: string[] = [];
    try {
      heldCalls = await gate.heldAt(runs.build);
      // The call rows are the Calls tab's (at /runs/<id>/calls: a reload stays on it).
      await openTab(page, 'Calls');
      await expectCount(wb.callRows(page), heldCalls.length);
      await expectText(wb.runStatus(page), 'running');
      expect(await callLinks(wb.callRows(page))).toEqual(heldCalls);
      // A write token may act on a running run.
      await expectVisible(wb.button(page, 'Cancel run'));

      await page.reload();
      await expectText(wb.stream(page), 'live');
      await expectText(wb.runStatus(page), 'running');
      await expectCount(wb.callRows(page), heldCalls.length);
      expect(await callLinks(wb.callRows(page))).toEqual(heldCalls);
      // The run is still held: what the page shows after the reload is the middle of the run.
      expect((await pipeline.sql<{ status: string }>(`SELECT status FROM runs WHERE id = $1`, [runs.build]))[0].status).toBe('running');

      // The connection drops (a tab reaching the api through a proxy the test takes down): the page
      // says so, and picks the stream up after the last event it folded (Last-Event-ID).
      const proxy = await startTcpProxy(Number(new URL(pipeline.api).port));
      try {
        const dropped = await openWithToken(writer, `${proxy.url}/runs/${runs.build}/calls`, TOKENS.write, pageErrors);
        await expectText(wb.stream(dropped), 'live');
        await expectCount(wb.callRows(dropped), heldCalls.length);
        proxy.takeDown();
        await expectText(wb.stream(dropped), 'reconnecting…');
        proxy.restore();
        await expectText(wb.stream(dropped), 'live');
        const resumedAfter = proxy.requests
          .filter((head) => head.startsWith(`GET /v1/runs/${runs.build}/events`))
          .map((head) => /^last-event-id: *(\d+)/im.exec(head)?.[1])
          .filter(Boolean);
        expect(Number(resumedAfter.at(-1))).toBeGreaterThan(0);
        await expectCount(wb.callRows(dropped), heldCalls.length);
        await dropped.close();
      } finally {
        await proxy.close();
      }

      // A read token, mid-run: the same run, and no act buttons at all (absent, not disabled).
      const readPage = await openWithToken(reader, `${pipeline.api}/runs/${runs.build}/calls`, TOKENS.read, pageErrors, { untilRoleKnown: true });
      await expectText(wb.runStatus(readPage), 'running');
      await expectCount(wb.callRows(readPage), heldCalls.length);
      // The app knows it is a read token (the header says so) before the acts' absence means anything.
      await expectVisible(readPage.getByText('reader · read'));
      for (const act of ['Cancel run', 'Resume run', 'Appeal']) expect(await wb.button(readPage, act).count()).toBe(0);
      await readPage.close();
    } finally {
      // Open whatever failed above: the later tests' runs use the same provider queue.
      await gate.open();
    }
    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);
    await expectText(wb.verdict(page), 'ACCEPT');
    await expectText(wb.stream(page), 'ended');
    const [{ calls }] = await pipeline.sql<{ calls: number }>(`SELECT count(*)::int AS calls FROM agent_calls WHERE run_id = $1`, [runs.build]);
    await expectCount(wb.callRows(page), calls);
    expect(calls).toBeGreaterThan(heldCalls.length);
    expect(await wb.button(page, 'Cancel run').count()).toBe(0);

    // The diff the run applied, per file: dd.py with the function the engineer wrote.
    await openTab(page, 'Diff & tests');
    const diff = wb.section(page, 'Diff');
    await expectVisible(diff.getByRole('heading', { name: /^(?:[ab]\/)?dd\.py\b/ }));
    await expectTextContaining(diff, 'def max_drawdown');
    await saveScreenshot(page, 'build-run');
    const tabs: [string, string[]][] = [
      ['Calls', ['Timeline']],
      ['Overview', ['Stage graph', 'Waterfall', 'Budget burn', 'Budget']],
      ['Proposals', ['Proposals', 'Critiques', 'Acceptance criteria', 'Disagreements']],
      ['Diff & tests', ['Implementations', 'Diff', 'Tests', 'Review']],
      ['Report', ['Report']],
      ['Events', ['Events']],
    ];
    for (const [tab, names] of tabs) {
      await openTab(page, tab);
      for (const name of names) await expectVisible(wb.section(page, name));
    }
    // Back on the Calls tab: the next tests read its rows.
    await openTab(page, 'Calls');
  });

  it('a second tab on the same run shows the same final state', async () => {
    const first = writer.pages().find((p) => p.url().includes(`/runs/${runs.build}`))!;
    const second = await openWithToken(writer, `${pipeline.api}/runs/${runs.build}/calls`, TOKENS.write, pageErrors);
    await expectText(wb.runStatus(second), 'done');
    await expectText(wb.verdict(second), 'ACCEPT');
    await expectText(wb.stream(second), 'ended');
    const rows = await callLinks(wb.callRows(first));
    await expectCount(wb.callRows(second), rows.length);
    expect(await callLinks(wb.callRows(second))).toEqual(rows);
    await openTab(second, 'Diff & tests');
    await expectVisible(wb.section(second, 'Diff').getByRole('heading', { name: /^(?:[ab]\/)?dd\.py\b/ }));
    await second.close();
  });

  it("opens a call from the timeline and shows its messages, reply and usage", async () => {
    const page = writer.pages().find((p) => p.url().includes(`/runs/${runs.build}`))!;
    await openTab(page, 'Calls');
    const [firstCall] = await pipeline.sql<{ id: string; role: string; label: string; input_tokens: number; output_tokens: number }>(
      `SELECT id, role, label, input_tokens, output_tokens FROM agent_calls WHERE run_id = $1 ORDER BY seq LIMIT 1`,
      [runs.build],
    );
    await wb.callRows(page).first().locator('a[href*="/calls/"]').first().click();
    await page.waitForURL(new RegExp(`/runs/${runs.build}/calls/${firstCall.id}$`), { timeout: 60_000 });
    await expectVisible(wb.heading(page, new RegExp(`${firstCall.label}|${firstCall.role}`)));
    const messages = page.getByTestId('message');
    await eventually(async () => expect(await messages.count()).toBeGreaterThanOrEqual(1));
    // Each message with its role; the proposer was given the project's objective.
    const texts = await messages.allInnerTexts();
    for (const role of ['system', 'user']) expect(texts.some((t) => new RegExp(`^\\s*${role}\\s`).test(t))).toBe(true);
    await expectTextContaining(wb.section(page, 'Messages'), 'max_drawdown');
    // The tokens the call used, as recorded (digits only: the page may group them).
    await eventually(async () => {
      const usage = ((await wb.section(page, 'Usage').textContent()) ?? '').replace(/,/g, '');
      for (const n of [firstCall.input_tokens, firstCall.output_tokens]) expect(usage).toMatch(new RegExp(`(?<!\\d)${n}(?!\\d)`));
    });
    for (const name of ['Reply', 'Parsed', 'Schema', 'Validation', 'Usage']) await expectVisible(wb.section(page, name));
    await saveScreenshot(page, 'call');
  });

  it("tries a call again in the playground with an edited prompt: the try appears beside the original, and the run's usage is as it was", async () => {
    const [first] = await pipeline.sql<{ id: string }>(`SELECT id FROM agent_calls WHERE run_id = $1 ORDER BY seq LIMIT 1`, [runs.build]);
    const usageOf = async () => ((await (await fetch(`${pipeline.api}/v1/runs/${runs.build}`, { headers: { authorization: `Bearer ${TOKENS.write}` } })).json()) as { usage: { calls: number; tokens: number } }).usage;
    const before = await usageOf();
    const page = await openWithToken(writer, `${pipeline.api}/runs/${runs.build}/calls/${first.id}`, TOKENS.write, pageErrors, { untilRoleKnown: true });
    const playground = wb.section(page, 'Playground');
    await expectVisible(playground);
    // The last message is the user's prompt: asked again with a line added (the cassette's guards still hold).
    const boxes = playground.getByRole('textbox', { name: /^Message \d+ \(user\)$/ });
    const prompt = boxes.last();
    await prompt.fill(`${await prompt.inputValue()}\n\nAsked again from the playground.`);
    await playground.getByRole('button', { name: 'Try again', exact: true }).click();
    const tries = page.getByTestId('playground-try');
    await expectCount(tries, 1);
    await expectTextContaining(tries.first(), 'valid');
    await expectTextContaining(page.getByTestId('playground-compare'), 'Original');
    const [row] = await pipeline.sql<{ status: string; messages: { content: string }[] }>(`SELECT status, messages FROM playground_calls WHERE source_call_id = $1`, [first.id]);
    expect(row.status).toBe('completed');
    expect(JSON.stringify(row.messages)).toContain('Asked again from the playground.');
    expect(await usageOf()).toEqual(before);
    await page.close();
  });

  it('the panel demo shows five judge cards, fifteen debate turns and the re-vote deltas', async () => {
    const page = await openWithToken(writer, `${pipeline.api}/new`, TOKENS.write, pageErrors);
    await page.getByLabel('Project file', { exact: true }).fill(pastedProject(PANEL_DEMO));
    await wb.button(page, 'Submit run').click();
    await page.waitForURL(/\/runs\/run_[a-z0-9]+$/, { timeout: 60_000 });
    runs.panel = /\/runs\/(run_[a-z0-9]+)$/.exec(page.url())![1];
    await expectText(wb.runStatus(page), 'done', RUN_ENDS_MS);
    await expectText(wb.stream(page), 'ended');

    // The judges, the debate, the re-vote and the moderator are the Debate tab's.
    await openTab(page, 'Debate');
    const cards = wb.section(page, 'Judges').getByTestId('judge-card');
    await expectCount(cards, 5);
    // Each card: its judge's name as its heading (the casing is the page's), its score as the run
    // ended (after the re-vote) and the evidence the judge gave.
    const names = await cards.getByRole('heading', { level: 3 }).allTextContents();
    expect(names.map((n) => n.trim().toLowerCase()).sort()).toEqual(JUDGES.map((j) => j.judge).sort());
    for (const j of JUDGES) {
      const card = cards.filter({ has: page.getByRole('heading', { level: 3, name: new RegExp(`^\\s*${j.judge}\\s*$`, 'i') }) });
      await expectTextContaining(card, new RegExp(`(?<!\\d)${j.revoteScore}(?!\\d)`));
      await expectTextContaining(card, j.firstEvidence);
    }
    // Fifteen turns, in the order they were spoken.
    const turns = wb.section(page, 'Debate').getByTestId('debate-turn');
    await expectCount(turns, 15);
    const spoken = await turns.allTextContents();
    panelDemoDebate().forEach((message, i) => expect(spoken[i]).toContain(message));
    // Per judge, in the contract's order: previous score, new score, the signed delta, the reason.
    const deltas = wb.section(page, 'Re-vote').getByTestId('revote-delta');
    await expectCount(deltas, 5);
    const rows = await deltas.allInnerTexts();
    for (const j of JUDGES) {
      const d = j.revoteScore - j.score;
      const delta = d > 0 ? `\\+${d}` : d < 0 ? `[-−]${-d}` : '[±+]?0';
      const row = rows.find((r) => new RegExp(`^\\s*${j.judge}\\b`, 'i').test(r));
      expect(row).toMatch(new RegExp(`^\\s*${j.judge}\\s+${j.score}\\s+${j.revoteScore}\\s+${delta}\\b`, 'i'));
      if (j.revoteReason) expect(row).toContain(j.revoteReason);
    }
    await expectVisible(wb.section(page, 'Moderator'));
    // A finished panel can be appealed, by a write token.
    await expectVisible(wb.button(page, 'Appeal'));
    await saveScreenshot(page, 'panel-run');

    const readPage = await openWithToken(reader, `${pipeline.api}/runs/${runs.panel}/debate`, TOKENS.read, pageErrors, { untilRoleKnown: true });
    await expectCount(wb.section(readPage, 'Judges').getByTestId('judge-card'), 5);
    await expectVisible(readPage.getByText('reader · read'));
    for (const act of ['Cancel run', 'Resume run', 'Appeal']) expect(await wb.button(readPage, act).count()).toBe(0);
    await readPage.close();
  });

  it('a project with an unknown provider shows the error at its field, with its line', async () => {
    const page = await openWithToken(writer, `${pipeline.api}/new`, TOKENS.write, pageErrors);
    const text = pastedProject(DD_DEMO, { sandboxProcess: true }).replace(/(proposer:\s*\{\s*provider:\s*)replay/, '$1nowhere');
    const line = lineOf(text, /^\s*proposer:/);
    await page.getByLabel('Project file', { exact: true }).fill(text);
    await wb.button(page, 'Submit run').click();
    const issue = page.locator('[data-field="agents.proposer.provider"]');
    await expectVisible(issue);
    await expectTextContaining(issue, 'unknown provider "nowhere"');
    await expectTextContaining(issue, new RegExp(`\\b${line}\\b`));
    expect(new URL(page.url()).pathname).toBe('/new');
    await saveScreenshot(page, 'new-run-error');
  });

  it('the runs page lists both runs with their usage and filters them', async () => {
    const page = await openWithToken(reader, `${pipeline.api}/runs`, TOKENS.read, pageErrors);
    await expectVisible(wb.heading(page, 'Runs'));
    const table = page.getByRole('table');
    for (const col of ['Run', 'Project', 'Status', 'Workflow', 'Verdict', 'Calls', 'Tokens', 'Cost', 'Age']) {
      await expectVisible(table.getByRole('columnheader', { name: col, exact: true }));
    }
    const buildLink = table.getByRole('link', { name: runs.build });
    const panelLink = table.getByRole('link', { name: runs.panel });
    await expectVisible(buildLink);
    await expectVisible(panelLink);
    // (`has` is looked up inside each row: a locator from the page, not from the table.)
    const buildRow = table.getByRole('row').filter({ has: page.getByRole('link', { name: runs.build }) });
    await expectTextContaining(buildRow, 'ACCEPT');
    // Its usage, in the contract's columns: Calls (the run's agent calls), Tokens (a count), Cost (dollars).
    const [{ calls }] = await pipeline.sql<{ calls: number }>(`SELECT count(*)::int AS calls FROM agent_calls WHERE run_id = $1`, [runs.build]);
    const cells = buildRow.getByRole('cell');
    await expectText(cells.nth(5), String(calls));
    await expectText(cells.nth(6), /^[1-9][\d,]*$/);
    await expectText(cells.nth(7), /^\$\d+\.\d+$/);
    await saveScreenshot(page, 'runs');

    // Search by a word of the objective: the build demo's, not the panel's; the URL keeps it over a reload.
    await page.getByLabel('Search', { exact: true }).fill('drawdown');
    await expectCount(panelLink, 0);
    await expectVisible(buildLink);
    await page.waitForURL(/[?&]q=drawdown/, { timeout: 10_000 });
    await page.reload();
    await expectVisible(table.getByRole('link', { name: runs.build }));
    await expectCount(table.getByRole('link', { name: runs.panel }), 0);
    await page.getByLabel('Search', { exact: true }).fill('');
    await expectVisible(panelLink);

    await page.getByLabel('Workflow', { exact: true }).selectOption('panel');
    await expectCount(buildLink, 0);
    await expectVisible(panelLink);
    await page.getByLabel('Workflow', { exact: true }).selectOption('build');
    await expectCount(panelLink, 0);
    await expectVisible(buildLink);
    await page.getByLabel('Status', { exact: true }).selectOption('cancelled');
    await expectCount(buildLink, 0);

    await page.getByLabel('Status', { exact: true }).selectOption('done');
    await buildLink.click();
    await page.waitForURL(new RegExp(`/runs/${runs.build}$`), { timeout: 60_000 });
    await expectText(wb.verdict(page), 'ACCEPT');
  });

  it('is usable at phone width and from the keyboard, and every control on every page has a name', async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 812 } });
    try {
      const page = await phone.newPage();
      page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
      await page.goto(`${pipeline.api}/runs/${runs.build}`);
      // The token from the keyboard alone: focus, type, Enter.
      await wb.tokenInput(page).focus();
      await page.keyboard.type(TOKENS.write);
      await page.keyboard.press('Enter');
      await expectText(wb.runStatus(page), 'done');
      await openTab(page, 'Diff & tests');
      await expectVisible(wb.section(page, 'Diff'));
      for (const where of [`/runs/${runs.build}/diff`, `/runs/${runs.build}`, `/runs/${runs.build}/events`, `/runs/${runs.panel}`, `/runs/${runs.panel}/debate`, '/runs', '/new']) {
        if (new URL(page.url()).pathname !== where) {
          await page.goto(`${pipeline.api}${where}`);
          await expectVisible(page.getByRole('heading', { level: 1 }));
        }
        // Wide content (a diff, a table) scrolls inside its own box: the page itself never scrolls sideways.
        const sideways = await page.evaluate(`(() => {
          const by = () => document.documentElement.scrollWidth - document.documentElement.clientWidth;
          // On failure, which part of the page (hidden for a moment) takes the overflow away: what to fix.
          const culprits = [];
          if (by() > 0) {
            for (const el of document.querySelectorAll('header, section, main > *')) {
              const was = el.style.display;
              el.style.display = 'none';
              if (by() === 0) culprits.push(el.getAttribute('aria-labelledby') || el.tagName.toLowerCase() + '.' + el.className);
              el.style.display = was;
            }
          }
          return { by: by(), culprits };
        })()`);
        expect({ where, sideways }).toEqual({ where, sideways: { by: 0, culprits: [] } });
        expect({ where, unnamed: await unnamedControls(page) }).toEqual({ where, unnamed: [] });
      }
      await page.goto(`${pipeline.api}/runs/${runs.build}`);
      await expectText(wb.runStatus(page), 'done');
      await saveScreenshot(page, 'build-run-phone');
    } finally {
      await phone.close();
    }
  });

  it('every page passes axe (WCAG 2.x A/AA, no serious or critical violation) at 1280 and 390 px, and is photographed', async () => {
    const [firstCall] = await pipeline.sql<{ id: string }>(`SELECT id FROM agent_calls WHERE run_id = $1 ORDER BY seq LIMIT 1`, [runs.build]);
    // Each page of the workbench, and what shows it has finished drawing (the run pages once their run has ended).
    const pages: { name: string; path: string; ready: (page: Page) => Promise<void> }[] = [
      { name: 'runs', path: '/runs', ready: async (p) => expectVisible(p.getByRole('table').getByRole('link', { name: runs.build })) },
      { name: 'new-run', path: '/new', ready: async (p) => expectVisible(p.getByLabel('Project file', { exact: true })) },
      {
        name: 'build-run',
        // The run page opens at its Diff & tests tab (the other tabs are checked below, one by one).
        path: `/runs/${runs.build}/diff`,
        ready: async (p) => {
          await expectText(wb.runStatus(p), 'done');
          await expectText(wb.stream(p), 'ended');
          await expectVisible(wb.section(p, 'Diff'));
        },
      },
      {
        name: 'panel-run',
        path: `/runs/${runs.panel}/debate`,
        ready: async (p) => {
          await expectText(wb.runStatus(p), 'done');
          await expectText(wb.stream(p), 'ended');
          await expectCount(wb.section(p, 'Judges').getByTestId('judge-card'), 5);
        },
      },
      { name: 'call', path: `/runs/${runs.build}/calls/${firstCall.id}`, ready: async (p) => expectVisible(wb.section(p, 'Usage')) },
    ];
    const failures: string[] = [];
    const check = async (page: Page, label: string) => {
      await expectNoSeriousA11yViolations(page, label).catch((e: Error) => failures.push(e.message));
      await savePageShot(page, label);
    };
    for (const width of [1280, 390]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      try {
        const page = await context.newPage();
        page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
        await page.goto(`${pipeline.api}/runs`);
        await expectVisible(wb.tokenInput(page));
        await check(page, 'token');
        await enterToken(page, TOKENS.write);
        for (const { name, path: where, ready } of pages) {
          await page.goto(`${pipeline.api}${where}`);
          // A new document: the token is still this tab's (sessionStorage), so no token screen.
          await ready(page);
          await check(page, name);
          // A page with tabs: each tab's panel as well (its own screenshot, <page>-<tab>-<width>.png).
          const tabs = page.getByRole('tab');
          const names = (await tabs.allTextContents()).map((t) => t.trim());
          for (const [i, tab] of names.entries()) {
            await tabs.nth(i).click();
            await expectVisible(page.getByRole('tabpanel').first());
            await check(page, `${name}-${tab.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || `tab-${i + 1}`}`);
          }
        }
      } finally {
        await context.close();
      }
    }
    const shots = pageShots();
    // Where to look: .ci/run collects no artifacts, so the files stay in test-results/screenshots (git-ignored) and the run says so.
    process.stdout.write(`\n${shots.length} workbench screenshots in ${PAGE_SHOT_DIR}:\n  ${shots.join('\n  ')}\n`);
    expect(shots).toEqual(expect.arrayContaining(['token', ...pages.map((p) => p.name)].flatMap((n) => [`${n}-1280.png`, `${n}-390.png`])));
    expect(failures).toEqual([]);
  });
});

/** The form controls of the page a screen reader could not name (no label, aria-label, aria-labelledby, title or text). */
function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('input:not([type=hidden]), textarea, select, button')]
    .filter((el) => {
      const labelled = (el.labels && [...el.labels].some((l) => l.textContent.trim()))
        || (el.getAttribute('aria-label') || '').trim()
        || (el.getAttribute('aria-labelledby') || '').split(' ').some((id) => id && (document.getElementById(id)?.textContent || '').trim())
        || (el.getAttribute('title') || '').trim()
        || (el.tagName === 'BUTTON' && el.textContent.trim());
      return !labelled;
    })
    .map((el) => el.outerHTML.slice(0, 160))`) as Promise<string[]>;
}
