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

function resolveCassettes(cfg: PanelProjectConfig, opts: LoadOptions, issues: ConfigIssue[]): PanelProjectConfig {
  const providers = Object.fromEntries(
    Object.entries(cfg.providers).map(([name, pc]) =>
      pc.type === 'replay' ? [name, { ...pc, cassette: resolvedPath(pc.cassette, `providers.${name}.cassette`, opts, issues, opts.resolveCassette) }] : [name, pc],
    ),
  );
  return { ...cfg, providers };
}

/** The panel's version of the build loader's cross-checks: every judge and the moderator name a declared provider. */
function crossCheckPanel(cfg: PanelProjectConfig, env: LoadOptions['env'] | null, issues: ConfigIssue[]): void {
  const known = Object.keys(cfg.providers);
  const used = new Set<string>();
  const agents: [string, PanelProjectConfig['moderator']][] = [
    ...Object.entries(cfg.judges).map(([j, a]): [string, PanelProjectConfig['moderator']] => [`judges.${j}`, a]),
    ['moderator', cfg.moderator],
  ];
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
        message: `provider "${name}" needs the environment variable ${pc.api_key_env}, which is not set; export it or point the judges at another provider`,
      });
    }
  }
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
  if (raw && raw.workflow !== undefined && raw.workflow !== 'build') {
    throw new ProjectConfigError([{ path: 'workflow', message: `unknown workflow ${JSON.stringify(raw.workflow)}; use build (the default) or panel` }]);
  }
  return loadProjectConfig(input, opts);
}
