import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { launchBrowser, type Pipeline, projectConfigFrom, saveScreenshot, startPipeline, waitFor } from '@roundtable/testing';
import { expectText, expectVisible } from './support/workbench-expect';
import { openWithToken, workbench as wb } from './support/workbench-pages';

jest.setTimeout(240_000);

const REPO = path.resolve(__dirname, '../..');
const WEB_ROOT = path.join(REPO, 'dist/apps/web');
const PANEL_DEMO = path.join(REPO, 'examples/panel-demo/project.yaml');
const TOKEN = `wb-resume-${randomBytes(12).toString('hex')}`;

/**
 * The Act list offers Resume exactly where the api accepts one, per workflow: on a halted
 * panel, where it works from the browser (the run goes on and ends done), and on no cancelled
 * run (the api answers a resume of one 409).
 */
describe('the workbench offers Resume where the api takes it (real services, Chromium)', () => {
  let pipeline: Pipeline;
  let browser: Browser;
  let context: BrowserContext;
  let tmp: string;
  let cassette: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(path.join(WEB_ROOT, 'index.html'))) throw new Error(`${WEB_ROOT}/index.html is missing: run \`node tools/build.mjs\` first (its web target)`);
    tmp = mkdtempSync(path.join(tmpdir(), 'rt-e2e-wb-resume-'));
    // The demo's cassette with the moderator's reply twice: the halt's partial synthesis, then the whole one.
    const demo = parseYaml(readFileSync(path.join(REPO, 'examples/panel-demo/cassette.yaml'), 'utf8')) as { replies: { role: string }[] };
    cassette = path.join(tmp, 'cassette.yaml');
    writeFileSync(cassette, toYaml({ ...demo, replies: [...demo.replies, demo.replies.find((r) => r.role === 'moderator')!] }));
    pipeline = await startPipeline({ env: { API_TOKENS: `writer:${TOKEN}:write`, HOST: '127.0.0.1' }, apiEnv: { WEB_ROOT } });
    browser = await launchBrowser();
    context = await browser.newContext();
  });

  afterAll(async () => {
    await browser?.close();
    await pipeline?.stop();
    rmSync(tmp, { recursive: true, force: true });
    expect(pageErrors).toEqual([]);
  });

  const authed = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  async function submit(over: Record<string, unknown>, latencyMs = 0): Promise<string> {
    const cfg = projectConfigFrom(PANEL_DEMO, over) as { providers: Record<string, Record<string, unknown>> };
    cfg.providers.replay = { ...cfg.providers.replay, cassette, latency_ms: latencyMs };
    const res = await fetch(`${pipeline.api}/v1/runs`, { method: 'POST', headers: authed, body: JSON.stringify(cfg) });
    const body = (await res.json()) as { id: string; message?: string };
    expect({ status: res.status, message: body.message }).toEqual({ status: 202, message: undefined });
    return body.id;
  }
  const statusOf = async (id: string) => ((await (await fetch(`${pipeline.api}/v1/runs/${id}`, { headers: authed })).json()) as { status: string }).status;
  const until = (id: string, status: string) => waitFor(`run ${id} to be ${status}`, async () => ((await statusOf(id)) === status ? true : undefined), 90_000, 100);

  it('a halted panel shows Resume; raising its cap there resumes it and it ends done', async () => {
    const id = await submit({ budget: { max_calls: 8 } });
    await until(id, 'halted');
    const page = await openWithToken(context, `${pipeline.api}/runs/${id}`, TOKEN, pageErrors, { untilRoleKnown: true });
    await expectText(wb.runStatus(page), 'halted');
    const form = page.getByRole('form', { name: 'Resume' });
    await expectVisible(form);
    // A panel resumes where it stopped: no stage to choose, and only the caps a panel counts.
    expect(await form.getByLabel('From stage').count()).toBe(0);
    expect(await form.getByLabel('Max fix rounds').count()).toBe(0);
    await form.getByLabel('Max calls').fill('60');
    await saveScreenshot(page, 'panel-halted-resume');
    await wb.button(page, 'Resume run').click();
    await expectText(wb.runStatus(page), 'done', 90_000);
    expect(await statusOf(id)).toBe('done');
    // Done: resumed once, nothing left to resume; the appeal is offered instead.
    expect(await wb.button(page, 'Resume run').count()).toBe(0);
    await expectVisible(wb.button(page, 'Appeal'));
    await page.close();
  });

  it('a cancelled run offers no Resume', async () => {
    const id = await submit({}, 400);
    const res = await fetch(`${pipeline.api}/v1/runs/${id}/cancel`, { method: 'POST', headers: authed });
    expect(res.status).toBe(202);
    await until(id, 'cancelled');
    const page = await openWithToken(context, `${pipeline.api}/runs/${id}`, TOKEN, pageErrors, { untilRoleKnown: true });
    await expectText(wb.runStatus(page), 'cancelled');
    expect(await page.getByRole('form', { name: 'Resume' }).count()).toBe(0);
    expect(await wb.button(page, 'Resume run').count()).toBe(0);
    await page.close();
  });
});
