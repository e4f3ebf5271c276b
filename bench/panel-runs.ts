/**
 * The panel demo as the bench posts it, and the long panel's cassette: the demo's replies with
 * the debate repeated for as many rounds as the run is asked for.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { loadProjectFile } from '../apps/cli/src/project-file';

const REPO = path.resolve(__dirname, '..');
export const PANEL_PROJECT = path.join(REPO, 'examples/panel-demo/project.yaml');
export const PANEL_CASSETTE = path.join(REPO, 'examples/panel-demo/cassette.yaml');
const JUDGES = ['vc', 'engineer', 'pm', 'customer', 'competitor'];
/** Debate rounds the demo's cassette holds. */
const DEMO_ROUNDS = 3;

export interface PanelRunOptions {
  /** Absolute path of the cassette (default: the demo's). */
  cassette?: string;
  /** `max_debate_rounds` (default: the demo's, 3). */
  debateRounds?: number;
  /** The replay provider's latency per call (default 0). */
  latencyMs?: number;
}

/**
 * The panel demo as a client posts it (the CLI's own reader: cassette path absolute), with a
 * budget no bench run reaches, so that a halt is never what gets measured.
 */
export function panelProjectConfig(opts: PanelRunOptions = {}): Record<string, unknown> {
  const cfg = loadProjectFile(PANEL_PROJECT, REPO, process.env) as Record<string, unknown> & {
    budget: Record<string, number>;
    providers: Record<string, { type: string; cassette?: string; latency_ms?: number }>;
  };
  cfg.budget = { ...cfg.budget, max_calls: 1000, max_tokens: 100_000_000, max_cost_usd: 100_000, max_seconds: 86_400 };
  for (const p of Object.values(cfg.providers)) {
    if (p.type !== 'replay') continue;
    if (opts.cassette) p.cassette = opts.cassette;
    p.latency_ms = opts.latencyMs ?? 0;
  }
  if (opts.debateRounds !== undefined) cfg.max_debate_rounds = opts.debateRounds;
  return cfg;
}

/** Agent calls of a clean panel run with re-vote: 5 verdicts + 5 per debate round + 5 re-votes + 1 moderator. */
export const panelCalls = (debateRounds: number) => 5 + 5 * debateRounds + 5 + 1;

interface CassetteEntry {
  role: string;
  expects?: string[];
  forbids?: string[];
  reply: Record<string, unknown>;
}

/**
 * Writes a cassette for `rounds` debate rounds: the demo's verdicts, re-votes and moderator (with
 * their guards), and its three rounds of turns repeated, each turn's `round` set to the round it
 * is spoken in. The repeated turns carry no guards: the demo's name the turn before them by label.
 */
export function writeLongCassette(file: string, rounds: number): void {
  const { replies } = parseYaml(readFileSync(PANEL_CASSETTE, 'utf8')) as { replies: CassetteEntry[] };
  const perRole = new Map<string, CassetteEntry[]>();
  for (const r of replies) perRole.set(r.role, [...(perRole.get(r.role) ?? []), r]);
  const nth = (role: string, i: number) => {
    const e = perRole.get(role)?.[i];
    if (!e) throw new Error(`${PANEL_CASSETTE}: no reply #${i + 1} for ${role}`);
    return e;
  };
  const out: CassetteEntry[] = JUDGES.map((j) => nth(j, 0));
  for (let round = 1; round <= rounds; round++) {
    for (const j of JUDGES) {
      const demoTurn = nth(j, 1 + ((round - 1) % DEMO_ROUNDS));
      out.push({ role: j, reply: { ...demoTurn.reply, round } });
    }
  }
  out.push(...JUDGES.map((j) => nth(j, 1 + DEMO_ROUNDS)), nth('moderator', 0));
  writeFileSync(file, toYaml({ replies: out }));
}
