import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { launchBrowser, saveScreenshot } from './browser';

// That playwright-core (1.65) still drives the system's Chromium (Debian's, 156 here): the
// workbench e2e depends on it, and a version drift between the two shows up here first, small.
describe('launchBrowser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens a page, runs its script and reads its text', async () => {
    const page = await browser.newPage();
    const html = '<h1 id="t">before</h1><script>document.getElementById("t").textContent = "after " + (6 * 7)</script>';
    await page.goto(`data:text/html,${encodeURIComponent(html)}`);
    expect(await page.getByRole('heading').textContent()).toBe('after 42');
    expect(browser.version()).toMatch(/^\d+\./);
  });

  it('writes a screenshot as a PNG under test-results/workbench', async () => {
    const page = await browser.newPage();
    await page.goto('data:text/html,<p>shot</p>');
    const file = await saveScreenshot(page, 'browser-self-check');
    try {
      expect(readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      rmSync(file, { force: true });
    }
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a screenshot name that could leave the folder', async () => {
    const page = await browser.newPage();
    await expect(saveScreenshot(page, '../escape')).rejects.toThrow(/lower-case letters, digits and dashes/);
  });
});
