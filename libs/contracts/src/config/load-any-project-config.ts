import { parse as parseYaml } from 'yaml';
import { PanelProjectConfig } from '../panel/panel-project-config.schema';
import {
  expandEnv,
  liftNestedProject,
  loadProjectConfig,
  ProjectConfigError,
  resolvedPath,
  zodIssuesToConfigIssues,
  type ConfigIssue,
  type LoadOptions,
} from './load-project-config';
import type { ProjectConfig } from './project-config.schema';

/** Why `workflow: experiment` is not a run to submit. */
export const EXPERIMENT_NOT_A_RUN = 'an experiment is preregistered with POST /v1/experiments (roundtable experiment preregister FILE), not submitted as a run';

/** A project file of either workflow; `workflow` tells them apart (build is the default). */
export type AnyProjectConfig = ProjectConfig | PanelProjectConfig;

export function isPanelConfig(cfg: AnyProjectConfig): cfg is PanelProjectConfig {
  return cfg.workflow === 'panel';
}

/** The mapping a project file holds, or undefined when it is not readable as one. */
function peek(input: string | unknown): Record<string, unknown> | undefined {
  let raw: unknown = input;
  if (typeof input === 'string') {
    try {
      raw = parseYaml(input);
    } catch {
      return undefined;
    }
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  return liftNestedProject(raw as Record<string, unknown>);
}

/** Every replay provider's cassette resolved (absolute, under the project file, or under the operator's cassette roots). */
export function resolveCassettes<C extends { providers: PanelProjectConfig['providers'] }>(cfg: C, opts: LoadOptions, issues: ConfigIssue[]): C {
  const providers = Object.fromEntries(
    Object.entries(cfg.providers).map(([name, pc]) =>
      pc.type === 'replay' ? [name, { ...pc, cassette: resolvedPath(pc.cassette, `providers.${name}.cassette`, opts, issues, opts.resolveCassette) }] : [name, pc],
    ),
  );
  return { ...cfg, providers };
}

type NamedAgent = [path: string, agent: { provider: string; fallback?: string }];

/**
 * The build loader's cross-checks for a workflow whose agents are not `agents.<role>` (a panel's
 * judges and moderator, an experiment's interpreter and critic): every provider and fallback an
 * agent names is declared, every per-provider budget names a declared provider, and (in a user's
 * own shell only) every used provider's key is set.
 */
export function crossCheckAgents(
  cfg: { providers: PanelProjectConfig['providers']; budget: { per_provider: Record<string, unknown> } },
  agents: NamedAgent[],
  env: LoadOptions['env'] | null,
  issues: ConfigIssue[],
  agentWord = 'the agents',
): void {
  const known = Object.keys(cfg.providers);
  const used = new Set<string>();
  for (const [path, agent] of agents) {
    for (const field of ['provider', 'fallback'] as const) {
      const name = agent[field];
      if (!name) continue;
      if (!cfg.providers[name]) {
        issues.push({ path: `${path}.${field}`, message: `unknown provider "${name}"; declare it under providers (known: ${known.join(', ')})` });
      } else {
        used.add(name);
      }
    }
  }
  for (const name of Object.keys(cfg.budget.per_provider)) {
    if (!cfg.providers[name]) issues.push({ path: `budget.per_provider.${name}`, message: `unknown provider "${name}" (known: ${known.join(', ')})` });
  }
  // Keys are checked in a user's own shell only (see LoadOptions.env): a service's environment holds none.
  for (const name of env ? used : []) {
    const pc = cfg.providers[name];
    if ('api_key_env' in pc && !env?.[pc.api_key_env]) {
      issues.push({
        path: `providers.${name}.api_key_env`,
        message: `provider "${name}" needs the environment variable ${pc.api_key_env}, which is not set; export it or point ${agentWord} at another provider`,
      });
    }
  }
}

/** The panel's agents: every judge and the moderator. */
function crossCheckPanel(cfg: PanelProjectConfig, env: LoadOptions['env'] | null, issues: ConfigIssue[]): void {
  const agents: NamedAgent[] = [...Object.entries(cfg.judges).map(([j, a]): NamedAgent => [`judges.${j}`, a]), ['moderator', cfg.moderator]];
  crossCheckAgents(cfg, agents, env, issues, 'the judges');
}

function loadPanelConfig(raw: Record<string, unknown>, opts: LoadOptions): PanelProjectConfig {
  const issues: ConfigIssue[] = [];
  const expanded = expandEnv(raw, [], opts.variables === 'refuse' ? null : opts.env, issues);
  const parsed = PanelProjectConfig.safeParse(expanded);
  if (!parsed.success) {
    const envPaths = new Set(issues.map((i) => i.path));
    throw new ProjectConfigError([...issues, ...zodIssuesToConfigIssues(parsed.error).filter((i) => !envPaths.has(i.path))]);
  }
  const cfg = resolveCassettes(parsed.data, opts, issues);
  crossCheckPanel(cfg, opts.variables === 'refuse' ? null : opts.env, issues);
  if (issues.length) throw new ProjectConfigError(issues);
  return cfg;
}

/**
 * Loads a project file of any workflow. `workflow: panel` is validated as a PanelProjectConfig
 * with the same error reporting (ProjectConfigError, every issue at once); anything else —
 * including malformed YAML and a missing `workflow` — goes to loadProjectConfig unchanged.
 */
export function loadAnyProjectConfig(input: string | unknown, opts: LoadOptions): AnyProjectConfig {
  const raw = peek(input);
  if (raw && raw.workflow === 'panel') return loadPanelConfig(raw, opts);
  // An experiment is locked before it runs (hash, pinned commit): a submitted run would skip the lock.
  if (raw && raw.workflow === 'experiment') throw new ProjectConfigError([{ path: 'workflow', message: EXPERIMENT_NOT_A_RUN }]);
  if (raw && raw.workflow !== undefined && raw.workflow !== 'build') {
    throw new ProjectConfigError([{ path: 'workflow', message: `unknown workflow ${JSON.stringify(raw.workflow)}; use build (the default) or panel` }]);
  }
  return loadProjectConfig(input, opts);
}
