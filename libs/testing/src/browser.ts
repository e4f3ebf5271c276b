import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Where `saveScreenshot` writes (git-ignored; CI keeps it as an artifact of a failed or passed run). */
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'workbench');

/**
 * The flags the browser tests need on this machine. The network is closed here: without the
 * disable-* flags Chromium keeps trying to reach Google (component updates, sync, field trials)
 * and a page load can stall behind them. --no-sandbox: CI runs as root, where Chromium's own
 * sandbox refuses to start.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

/** $CHROMIUM_PATH, else Debian's /usr/bin/chromium (scripts/ensure-browser.sh makes sure one is there). */
export function chromiumPath(): string {
  const exe = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(exe)) {
    throw new Error(
      `no Chromium at ${exe}: run scripts/ensure-browser.sh (installs the apt package chromium), or set CHROMIUM_PATH to a Chromium executable`,
    );
  }
  return exe;
}

/** A headless Chromium driven by playwright-core (which ships no browser: it runs the system's). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: [...CHROMIUM_ARGS] });
}

/** Writes a full-page screenshot to test-results/workbench/<name>.png and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`screenshot name "${name}" must be lower-case letters, digits and dashes`);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
