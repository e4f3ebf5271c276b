import { parse as parseYaml, YAMLParseError } from 'yaml';
import { formatSyntaxError, yamlSyntaxErrorAt } from './syntax-error';
import { z } from 'zod';
import { BuildRole } from '../run/run-vocabulary';
import { ProjectConfig, type AgentConfig } from './project-config.schema';
import { permissionOf } from './role-permissions';

/** One problem with a project file: where (a dotted path) and what to do about it. */
export interface ConfigIssue {
  path: string;
  message: string;
}

export class ProjectConfigError extends Error {
  readonly code = 'INVALID_PROJECT_CONFIG';
  constructor(readonly issues: ConfigIssue[]) {
    super(`invalid project config:\n${issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n')}`);
  }
}

export interface LoadOptions {
  /**
   * Environment for `${VAR}` expansion and, when expanding (a user's own shell), the api_key_env
   * check. The services (`refuse`) never check a key: keys live on the provider-workers, and the
   * api asks the provider registry which worker holds which (apps/api provider-availability.check.ts).
   */
  env: Record<string, string | undefined>;
  /**
   * Directory of the project file: relative paths (repo, cassette) are resolved against it.
   * Without it (a config posted to the API) those paths must already be absolute.
   */
  baseDir?: string;
  /**
   * Without a baseDir (a config posted to the API): where a relative replay cassette path lives,
   * or null when nowhere. The api answers from the operator's cassette roots (the first root
   * holding the file), so a shipped example's cassette can be named relative to them.
   */
  resolveCassette?: (relative: string) => string | null;
  /**
   * `expand` (the CLI, from the user's shell) or `refuse` (the services: a posted config is
   * expanded by its client, never from a server's environment, where `${DATABASE_URL}` would
   * read a secret into every prompt). Default: expand.
   */
  variables?: 'expand' | 'refuse';
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export const VARIABLE_REFUSED =
  'holds "${": the services never expand variables (a server\'s environment holds its secrets); expand it in your shell before posting (the roundtable CLI does), or remove it';

/**
 * `${VAR}` and `${VAR:-default}` in every string value, so model ids never live in the repo;
 * with `env` null (the services) any `${` is refused instead, naming the field.
 */
export function expandEnv(value: unknown, path: string[], env: LoadOptions['env'] | null, issues: ConfigIssue[]): unknown {
  if (typeof value === 'string') {
    if (env === null) {
      if (value.includes('${')) issues.push({ path: path.join('.'), message: VARIABLE_REFUSED });
      return value;
    }
    return value.replace(VAR, (_m, name: string, fallback: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      issues.push({ path: path.join('.'), message: `environment variable ${name} is not set (set it, or write \${${name}:-default})` });
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, [...path, String(i)], env, issues));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandEnv(v, [...path, k], env, issues)]));
  }
  return value;
}

/** The seed's files nest name/objective/requirements under `project:`; accept both shapes. */
export function liftNestedProject(raw: Record<string, unknown>): Record<string, unknown> {
  const p = raw.project;
  if (p && typeof p === 'object' && !Array.isArray(p)) {
    const { name, ...rest } = p as Record<string, unknown>;
    return { ...rest, ...raw, project: name };
  }
  return raw;
}

export function isAbsolute(p: string): boolean {
  return p.startsWith('/');
}

export function joinPath(base: string, rel: string): string {
  const parts = `${base.replace(/\/+$/, '')}/${rel}`.split('/');
  const out: string[] = [];
  for (const seg of parts) {
    if (seg === '..') out.pop();
    else if (seg !== '.' && seg !== '') out.push(seg);
  }
  return '/' + out.join('/');
}

/**
 * A path as the loader keeps it: absolute, `~/` under HOME, relative to the project file's
 * directory, or (a cassette posted to the API) where the operator's cassette roots hold it.
 * Anything else is an issue naming the field and the two ways to fix it.
 */
export function resolvedPath(p: string, field: string, opts: LoadOptions, issues: ConfigIssue[], underRoots?: (relative: string) => string | null): string {
  if (isAbsolute(p)) return p;
  if (p.startsWith('~/') && opts.env.HOME) return joinPath(opts.env.HOME, p.slice(2));
  if (opts.baseDir) return joinPath(opts.baseDir, p);
  const found = underRoots?.(p);
  if (found) return found;
  issues.push({
    path: field,
    message: underRoots
      ? `"${p}" is relative, and none of the operator's cassette roots (cassettes.roots) holds it; give an absolute path, or one relative to a cassette root (the roundtable CLI resolves paths against the project file)`
      : `"${p}" is relative; a config posted to the API must carry absolute paths (the roundtable CLI resolves them against the project file)`,
  });
  return p;
}

function resolvePaths(cfg: ProjectConfig, opts: LoadOptions, issues: ConfigIssue[]): ProjectConfig {
  const providers = Object.fromEntries(
    Object.entries(cfg.providers).map(([name, pc]) => [
      name,
      pc.type === 'replay' ? { ...pc, cassette: resolvedPath(pc.cassette, `providers.${name}.cassette`, opts, issues, opts.resolveCassette) } : pc,
    ]),
  );
  return { ...cfg, repo: cfg.repo ? resolvedPath(cfg.repo, 'repo', opts, issues) : cfg.repo, providers };
}

/** Checks that need more than one field: names that must refer to something, keys that must be set. */
function crossCheck(cfg: ProjectConfig, env: LoadOptions['env'] | null, issues: ConfigIssue[]): void {
  const known = Object.keys(cfg.providers);
  const usedProviders = new Set<string>();
  // The agents an experiment drafted by this build is read by (issue 24) name providers like the roles do.
  const seats: [string, AgentConfig | undefined][] = Object.entries(cfg.agents).map(([role, agent]) => [`agents.${role}`, agent]);
  if (cfg.experiments) {
    const { proposer, interpreter, critic } = cfg.experiments;
    seats.push(['experiments.proposer', proposer], ['experiments.interpreter', interpreter], ['experiments.critic', critic]);
  }
  for (const [seat, agent] of seats) {
    if (!agent) continue; // an optional role (the reviewer) left out
    for (const field of ['provider', 'fallback'] as const) {
      const name = agent[field];
      if (!name) continue;
      if (!cfg.providers[name]) {
        issues.push({
          path: `${seat}.${field}`,
          message: `unknown provider "${name}"; declare it under providers (known: ${known.join(', ')})`,
        });
      } else {
        usedProviders.add(name);
      }
    }
  }
  for (const name of Object.keys(cfg.budget.per_provider)) {
    if (!cfg.providers[name]) {
      issues.push({ path: `budget.per_provider.${name}`, message: `unknown provider "${name}" (known: ${known.join(', ')})` });
    }
  }
  checkAgentMode(cfg, issues);
  checkPermissions(cfg, issues);
  checkMerge(cfg, issues);
  checkSolo(cfg, issues);
  for (const name of env ? usedProviders : []) {
    const pc = cfg.providers[name];
    if ('api_key_env' in pc && !env?.[pc.api_key_env]) {
      issues.push({
        path: `providers.${name}.api_key_env`,
        message: `provider "${name}" needs the environment variable ${pc.api_key_env}, which is not set; export it or point the agents at another provider`,
      });
    }
  }
}

/**
 * A merge needs somewhere to merge into: the `merge` gate and autonomy 3 merge the run branch
 * into `merge.into` of the project's `repo`. A greenfield run (no repo) has no original, so its
 * branch is offered as a bundle and a patch instead, never merged.
 */
function checkMerge(cfg: ProjectConfig, issues: ConfigIssue[]): void {
  const merging = cfg.approvals.includes('merge') || cfg.autonomy === 3;
  if (cfg.approvals.includes('merge') && !cfg.merge) {
    issues.push({ path: 'merge', message: 'approvals names the merge gate, but merge is not set; add merge: { into: main } (the branch to merge into), or drop merge from approvals' });
  }
  if (cfg.autonomy === 3 && !cfg.merge) {
    issues.push({ path: 'merge', message: 'autonomy 3 merges a solved run by itself, but merge is not set; add merge: { into: main }, or use autonomy: 2' });
  }
  if (cfg.merge && !cfg.repo) {
    issues.push({ path: 'merge.into', message: 'merge needs a repo to merge into; a greenfield run (no repo) offers its branch as a bundle and a patch instead: drop merge, or set repo' });
  }
  if (cfg.approvals.includes('criteria') && cfg.autonomy < 2) {
    issues.push({ path: 'approvals', message: `the criteria gate waits before implementing, which autonomy ${cfg.autonomy} never does; drop criteria from approvals, or use autonomy: 2` });
  }
  if (merging && cfg.autonomy < 2) {
    issues.push({ path: 'approvals', message: `the merge gate waits before merging, which autonomy ${cfg.autonomy} never does (nothing is implemented); drop merge from approvals, or use autonomy: 2` });
  }
  const dupes = cfg.approvals.filter((g, i) => cfg.approvals.indexOf(g) !== i);
  if (dupes.length) issues.push({ path: 'approvals', message: `gate ${dupes[0]} is named twice; name each gate once` });
}

/**
 * The solo pipeline (issue 25) is the engineer alone: no debate, no review, no synthesizer. A gate
 * would promise a person a decision the pipeline never stops for, so it is refused rather than
 * ignored (the criteria gate has no debate to follow, the merge gate no synthesis to show); and
 * autonomy 0 and 1 write nothing, while writing is all a solo run does.
 */
function checkSolo(cfg: ProjectConfig, issues: ConfigIssue[]): void {
  if (cfg.pipeline !== 'solo') return;
  if (cfg.approvals.length) {
    issues.push({ path: 'approvals', message: `pipeline: solo opens no gate (no one debates the criteria or reads a synthesis before a merge), but approvals names ${cfg.approvals.join(', ')}; drop approvals, or use pipeline: team` });
  }
  if (cfg.autonomy < 2) {
    issues.push({ path: 'autonomy', message: `pipeline: solo only implements and tests, which autonomy ${cfg.autonomy} never does; use autonomy: 2, or pipeline: team` });
  }
}

/**
 * Permissions that contradict what the build does with a role's output: the engineer's files
 * are what gets written, so it needs `write`, and nobody else's output is ever written, so
 * `write` on another role would promise what never happens. `none` on a reading role (critic,
 * validator, reviewer) is fine: that role then gets no file tree and no file requests.
 */
function checkPermissions(cfg: ProjectConfig, issues: ConfigIssue[]): void {
  if (permissionOf(cfg, 'engineer').workspace !== 'write') {
    issues.push({
      path: 'permissions.engineer.workspace',
      message: `is ${permissionOf(cfg, 'engineer').workspace}, but the engineer writes the implementation; set permissions.engineer.workspace: write`,
    });
  }
  for (const role of BuildRole.options) {
    if (role === 'engineer' || permissionOf(cfg, role).workspace !== 'write') continue;
    issues.push({
      path: `permissions.${role}.workspace`,
      message: `is write, but only the engineer's output is written to the workspace; set permissions.${role}.workspace: read (or none)`,
    });
  }
}

/** The CLIs that can work as an agent inside the worktree (their own tools on, writes confined to it). */
export const AGENT_MODE_CLIS = ['claude', 'codex', 'grok'] as const;

/**
 * Why a CLI that edits files is still not offered agent mode, for the refusal. agy's only way to
 * let its tools run headless is --dangerously-skip-permissions, which approves every tool
 * anywhere; its --sandbox was measured writing outside the workspace (yuting0624/
 * antigravity-for-claude-code#63), so nothing keeps its writes in the worktree.
 */
const NO_AGENT_MODE_WHY: Partial<Record<string, string>> = {
  agy: ' (agy has no flag that keeps its edits inside the worktree: --dangerously-skip-permissions approves every tool anywhere)',
};

/** API providers whose native tool calling runs the engineer's tool loop in agent mode (issue 21); replay plays a recorded one. */
const TOOL_LOOP_PROVIDERS = ['anthropic', 'openai_compat', 'gemini', 'ollama', 'replay'];

/**
 * Agent mode (seed addendum 2) is the engineer's alone. On a CLI that edits files itself
 * (claude, codex, grok) the CLI runs its own loop in the worktree; on an API provider the
 * engine runs a tool loop, one recorded call a turn, the tools run by the test-runner. The
 * provider and its fallback must be the same kind: a loop cannot switch halfway between them.
 */
function checkAgentMode(cfg: ProjectConfig, issues: ConfigIssue[]): void {
  for (const [role, agent] of Object.entries(cfg.agents)) {
    if (agent?.mode !== 'agent') continue;
    if (role !== 'engineer') {
      issues.push({ path: `agents.${role}.mode`, message: `agent mode is for the engineer only; the ${role} answers with JSON (mode: answer)` });
      continue;
    }
    const kinds: Partial<Record<'provider' | 'fallback', 'cli' | 'api'>> = {};
    for (const field of ['provider', 'fallback'] as const) {
      const name = agent[field];
      const pc = name ? cfg.providers[name] : undefined;
      if (!pc) continue;
      if (pc.type === 'cli' && (AGENT_MODE_CLIS as readonly string[]).includes(pc.cli)) kinds[field] = 'cli';
      else if (TOOL_LOOP_PROVIDERS.includes(pc.type)) kinds[field] = 'api';
      else {
        issues.push({
          path: `agents.engineer.${field}`,
          message: `agents.engineer.mode is agent, but "${name}" is the ${(pc as { cli: string }).cli} CLI${NO_AGENT_MODE_WHY[(pc as { cli: string }).cli] ?? ''}; agent mode needs a claude, codex or grok CLI provider, or an API provider (anthropic, openai_compat, gemini, ollama), or set mode: answer`,
        });
      }
    }
    if (kinds.provider && kinds.fallback && kinds.provider !== kinds.fallback) {
      issues.push({
        path: 'agents.engineer.fallback',
        message: `agents.engineer.mode is agent, and "${agent.provider}" is ${kinds.provider === 'cli' ? 'a CLI (its own loop)' : 'an API provider (the engine\'s tool loop)'} while the fallback "${agent.fallback}" is not: a loop cannot switch kinds halfway; pick a fallback of the same kind`,
      });
    }
  }
}

export function zodIssuesToConfigIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((i) => {
    const path = i.path.map(String).join('.');
    let message = i.message;
    if (i.code === 'invalid_union' && path.startsWith('providers.')) {
      message = `unknown provider type; use one of replay, anthropic, openai_compat, gemini, ollama, cli`;
    } else if (i.code === 'unrecognized_keys') {
      message = `unknown field(s) ${i.keys.map((k) => `"${k}"`).join(', ')}; check the spelling`;
    } else if (i.code === 'invalid_key' && i.issues.length) {
      // zod's own text is "Invalid key in record"; the rule the name broke is in the nested issue.
      message = `invalid name "${String(i.path[i.path.length - 1])}": ${i.issues.map((k) => k.message).join('; ')}`;
    }
    return { path, message };
  });
}

/**
 * A project file's YAML syntax error as one line: `line L, column C: malformed YAML: <what>`, the
 * position given once and where the fix goes (an unclosed brace: where it was opened).
 */
export function yamlSyntaxMessage(source: string, err: YAMLParseError): string {
  const at = yamlSyntaxErrorAt(source, err);
  // The seed writes `{ model: ${MODEL} }`; inside `{ }` YAML reads the braces as a mapping.
  const lines = source.split('\n');
  const hint = [lines[at.line - 1], lines[(err.linePos?.[0].line ?? at.line) - 1]].some((l) => /(^|[^"'])\$\{/.test(l ?? ''))
    ? '; inside { } quote variables: "${VAR}"'
    : '';
  return formatSyntaxError({ ...at, message: `malformed YAML: ${at.message}${hint}` });
}

/**
 * YAML/JSON text or an already-parsed value, as the mapping a file of any workflow is; malformed
 * YAML (with its line and column) or any other shape is one issue (`shape` says what it should be).
 */
export function fileMapping(input: string | unknown, shape: string): Record<string, unknown> {
  let raw: unknown = input;
  if (typeof input === 'string') {
    try {
      raw = parseYaml(input);
    } catch (e) {
      const message = e instanceof YAMLParseError ? yamlSyntaxMessage(input, e) : `malformed YAML: ${(e as Error).message.split('\n')[0]}`;
      throw new ProjectConfigError([{ path: '', message }]);
    }
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ProjectConfigError([{ path: '', message: shape }]);
  return raw as Record<string, unknown>;
}

/**
 * Parses a project file (YAML/JSON text, or an already-parsed object), expands `${VAR}`,
 * validates, resolves paths and cross-checks names. Throws ProjectConfigError listing every
 * problem at once, so a user fixes the file in one pass.
 */
export function loadProjectConfig(input: string | unknown, opts: LoadOptions): ProjectConfig {
  const raw = fileMapping(input, 'a project config is a YAML or JSON mapping (project, objective, providers, agents …)');
  const issues: ConfigIssue[] = [];
  const expanded = liftNestedProject(expandEnv(raw, [], opts.variables === 'refuse' ? null : opts.env, issues) as Record<string, unknown>);
  const parsed = ProjectConfig.safeParse(expanded);
  if (!parsed.success) {
    // An unset variable leaves '' behind; zod's "too small" for the same field would only repeat it.
    const envPaths = new Set(issues.map((i) => i.path));
    throw new ProjectConfigError([...issues, ...zodIssuesToConfigIssues(parsed.error).filter((i) => !envPaths.has(i.path))]);
  }
  const cfg = resolvePaths(parsed.data, opts, issues);
  crossCheck(cfg, opts.variables === 'refuse' ? null : opts.env, issues);
  if (issues.length) throw new ProjectConfigError(issues);
  return cfg;
}
