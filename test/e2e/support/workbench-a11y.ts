import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Where `savePageShot` writes: test-results/ is git-ignored; CI leaves it in the workspace. */
export const PAGE_SHOT_DIR = path.join(REPO_ROOT, 'test-results', 'screenshots');

/** The axe rule sets run: WCAG 2.0, 2.1 and 2.2, levels A and AA (color-contrast is one of them). */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] as const;

/** One axe violation, trimmed to what a failure message needs. */
export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  targets: string[];
  /** What axe says is wrong at the first node (e.g. the two colours and their ratio). */
  summary: string;
}

/**
 * Injects axe-core (node_modules/axe-core/axe.min.js, no network) into `page` once and runs it
 * over the whole document with the WCAG 2.x A/AA rules. Returns every violation, of any impact.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const present = await page.evaluate('typeof window.axe === "object"');
  // The workbench's CSP (default-src 'self') refuses page.addScriptTag's inline <script>; the
  // same file evaluated through the devtools protocol is not the page's script, so the page
  // keeps its real CSP while axe looks at it.
  if (!present) await page.evaluate(axeSource());
  // A string: it runs in the page, where `axe` and `document` are; this file is typed for node.
  return (await page.evaluate(`(async () => {
    const result = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      helpUrl: v.helpUrl,
      targets: v.nodes.map((n) => n.target.map(String).join(' ')),
      summary: (v.nodes[0] && v.nodes[0].failureSummary || '').replace(/\\s+/g, ' ').trim(),
    }));
  })()`)) as AxeViolation[];
}

let axeCode: string | undefined;
function axeSource(): string {
  axeCode ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  return axeCode;
}

/** The violations of impact serious or critical, one readable line each (rule, impact, help, where). */
export function describeViolations(violations: AxeViolation[], where: string): string[] {
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => {
      const more = v.targets.length > 3 ? ` (+${v.targets.length - 3} more)` : '';
      return `${where}: ${v.id} [${v.impact}] ${v.help} at ${v.targets.slice(0, 3).join(' | ')}${more} — ${v.summary} (${v.helpUrl})`;
    });
}

/**
 * Fails when axe finds a serious or critical WCAG 2.x A/AA violation on `page` as it stands.
 * The message names the page (URL and viewport width), each rule, its impact and help, and the
 * first few elements' selectors. `label` says which page of the workbench this is.
 */
export async function expectNoSeriousA11yViolations(page: Page, label: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  const where = `${label} (${page.url()} at ${width} px)`;
  const serious = describeViolations(await axeViolations(page), where);
  if (serious.length > 0) {
    throw new Error(`axe found ${serious.length} serious or critical accessibility violation(s):\n  ${serious.join('\n  ')}`);
  }
}

/**
 * A full-page screenshot of `page` at test-results/screenshots/<name>-<width>.png (the width
 * its viewport has). Returns the file's path.
 */
export async function savePageShot(page: Page, name: string): Promise<string> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`screenshot name "${name}" must be lower-case letters, digits and dashes`);
  const width = page.viewportSize()?.width ?? 0;
  mkdirSync(PAGE_SHOT_DIR, { recursive: true });
  const file = path.join(PAGE_SHOT_DIR, `${name}-${width}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The PNG files under test-results/screenshots (what a run left there for people to look at). */
export function pageShots(): string[] {
  try {
    return readdirSync(PAGE_SHOT_DIR).filter((f) => f.endsWith('.png')).sort();
  } catch {
    return [];
  }
}
