import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { JUDGES, PanelProjectConfig } from '@roundtable/contracts';
import { GoldenIdea } from '../verification/panel-golden-idea';
import { currentScores } from './panel-context-packs';
import { PanelDriver, replayCassette, type ReplayOptions } from './panel-scenario.fixture';
import type { PanelPromptTemplates, PanelTemplateName } from './panel-types';

/**
 * Test-only: the golden set (seed 003, test/fixtures/panel-golden/README.md) loaded once for the
 * tier 0 (structural) and tier 1 (quality) specs, and each idea driven through decidePanel() with
 * the real prompt templates and its cassette as the replayed judges. These are the workflow
 * tests that read files.
 */

export const ROOT = path.resolve(__dirname, '../../../..');
export const GOLDEN_DIR = path.join(ROOT, 'test/fixtures/panel-golden');
/** Seed 003: twelve golden ideas. */
export const GOLDEN_SET_SIZE = 12;

export function loadTemplates(): PanelPromptTemplates {
  const read = (rel: string) => readFileSync(path.join(ROOT, 'prompts', rel), 'utf8');
  const names: Exclude<PanelTemplateName, 'preamble'>[] = [...JUDGES, 'debate', 'revote', 'moderator', 'appeal'];
  return { preamble: read('preamble.md'), ...Object.fromEntries(names.map((n) => [n, read(`panel/${n}.md`)])) } as PanelPromptTemplates;
}

export interface GoldenEntry {
  name: string;
  file: string;
  idea: GoldenIdea;
}

export function loadGoldenSet(dir = GOLDEN_DIR): GoldenEntry[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const file = path.join(dir, f);
      return { name: f.replace(/\.yaml$/, ''), file, idea: GoldenIdea.parse(parse(readFileSync(file, 'utf8'))) };
    });
}

export const templates = loadTemplates();
export const goldenSet = loadGoldenSet();

/** The golden idea's panel, from start to its end (appeal not yet made): the driver and the replies each role used. */
export function driveGolden(g: GoldenEntry, opts: ReplayOptions = { order: 'fifo' }): { d: PanelDriver; used: Record<string, number> } {
  const agent = (model: string) => ({ provider: 'replay', model });
  const config = PanelProjectConfig.parse({
    workflow: 'panel',
    project: g.name,
    idea: g.idea.idea,
    ...g.idea.config,
    judges: Object.fromEntries(JUDGES.map((j) => [j, agent(`golden-${j}`)])),
    moderator: agent('golden-moderator'),
    providers: { replay: { type: 'replay', cassette: g.file } },
  });
  const d = new PanelDriver(config, templates, `golden-${g.name}`);
  d.start();
  const used = replayCassette(d, g.idea.replies, {}, opts);
  return { d, used };
}

/** The appeal the fixture names, made on a finished panel and answered from the rest of the cassette. */
export function appealGolden(g: GoldenEntry, d: PanelDriver, used: Record<string, number>) {
  const appeal = g.idea.appeal!;
  const before = currentScores(d.state);
  const step = d.appeal(appeal.evidence, appeal.judges);
  replayCassette(d, g.idea.replies, used);
  return { before, after: currentScores(d.state), step };
}

/** What must not depend on the order parallel replies land in. */
export function summary(d: PanelDriver) {
  return {
    status: d.state.status,
    path: d.path,
    scores: currentScores(d.state),
    recommendation: d.state.moderator?.body?.overall_recommendation ?? null,
    turns: d.state.turns.map((t) => `${t.label}:${t.speaker}:${t.round}`),
    warnings: d.state.warnings.map((w) => w.kind),
    quality: d.state.quality?.status ?? null,
  };
}

/** pass_rate over the golden set: the share of ideas whose every check held. */
export function passRate(results: readonly { name: string; failures: readonly string[] }[]): number {
  return results.length === 0 ? 0 : results.filter((r) => r.failures.length === 0).length / results.length;
}
