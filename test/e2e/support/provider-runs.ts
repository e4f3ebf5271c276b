import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BuildRole, OPTIONAL_BUILD_ROLES } from '@roundtable/contracts';
import { loadFakeScript, projectConfigFrom, type FakeScriptEntryInput, type Pipeline } from '@roundtable/testing';

export const REPO = path.resolve(__dirname, '../../..');
export const DEMO = path.join(REPO, 'examples/dd-demo/project.yaml');
const CASSETTE = path.join(REPO, 'examples/dd-demo/cassette.yaml');
/** The demo's roles: every build role but the optional ones (the demo has no second reviewer). */
export const ROLES = BuildRole.options.filter((r) => !(OPTIONAL_BUILD_ROLES as readonly string[]).includes(r));
export type Role = (typeof ROLES)[number];

/** The dd-demo's eight scripted replies (with their prompt guards): what the fake server and fake CLIs play. */
export function demoReplies(): FakeScriptEntryInput[] {
  return loadFakeScript(CASSETTE).replies;
}

/** The demo script with `entries` played before `role`'s first reply (faults that come first). */
export function withFirst(role: Role, entries: FakeScriptEntryInput[], replies = demoReplies()): FakeScriptEntryInput[] {
  const at = replies.findIndex((r) => r.role === role);
  return [...replies.slice(0, at), ...entries.map((e) => ({ ...e, role })), ...replies.slice(at)];
}

type AgentPatch = Record<string, unknown>;

/**
 * The demo project as posted, with `providers` added and every role on `provider` / `model`;
 * `agents` patches single roles (another provider, a fallback, a short timeout).
 */
export function demoOn(
  providers: Record<string, Record<string, unknown>>,
  provider: string,
  model: string,
  agents: Partial<Record<Role, AgentPatch>> = {},
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const all = Object.fromEntries(ROLES.map((r) => [r, { provider, model, ...agents[r] }]));
  return projectConfigFrom(DEMO, { providers, agents: all, ...overrides });
}

/**
 * examples/pricing.yaml plus a price for the local model the tests run on ollama, written where
 * the provider-worker's PRICING_FILE points (the table is deliberately without local models).
 */
export function writeTestPricing(dir: string): string {
  const file = path.join(dir, 'pricing.yaml');
  const table = readFileSync(path.join(REPO, 'examples/pricing.yaml'), 'utf8');
  writeFileSync(file, `${table.trimEnd()}\n  "qwen3:30b-a3b":   { input: 0.10, output: 0.40 }\n`);
  return file;
}

export interface CallRow {
  id: string;
  seq: number;
  role: string;
  label: string;
  provider: string;
  model: string;
  attempt: number;
  retry: number;
  retry_of: string | null;
  status: string;
  valid: boolean | null;
  error: string | null;
  error_code: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  cost_usd: string | null;
  cost_source: string | null;
  billing: string | null;
  argv: string[] | null;
  started_at: Date | null;
  finished_at: Date | null;
}

export function callRows(pipeline: Pipeline, runId: string): Promise<CallRow[]> {
  return pipeline.sql<CallRow>(`SELECT * FROM agent_calls WHERE run_id = $1 ORDER BY seq`, [runId]);
}

/** The demo's calls, one per reply (a retried call shows once per try). */
export const DEMO_CALLS = ['proposer:P1', 'critic:C1', 'reviser:P2', 'critic:C2', 'engineer:I1', 'engineer:I1f1', 'validator:R1', 'synthesizer:S1'];
