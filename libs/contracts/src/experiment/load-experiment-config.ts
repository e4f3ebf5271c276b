import { crossCheckAgents, resolveCassettes } from '../config/load-any-project-config';
import {
  expandEnv,
  fileMapping,
  liftNestedProject,
  ProjectConfigError,
  resolvedPath,
  zodIssuesToConfigIssues,
  type ConfigIssue,
  type LoadOptions,
} from '../config/load-project-config';
import { ExperimentProjectConfig } from './experiment-project-config.schema';

/** An experiment file's mapping (fileMapping), its `project:` block lifted like a project file's. */
const mappingOf = (input: string | unknown): Record<string, unknown> =>
  liftNestedProject(fileMapping(input, 'an experiment file is a YAML or JSON mapping (workflow: experiment, project, repo, preregistration, interpreter, critic, providers …)'));

/**
 * Loads an experiment file (`roundtable experiment preregister FILE`, POST /v1/experiments) the
 * way loadPanelConfig loads a panel's: `${VAR}` expanded (a user's shell) or refused (a service),
 * the schema (which holds the preregistration's own checks: criteria over named metrics, the
 * critic on another provider), paths resolved (replay cassettes, the repo), and every agent's
 * provider and fallback declared. Every issue at once, as one ProjectConfigError.
 */
export function loadExperimentConfig(input: string | unknown, opts: LoadOptions): ExperimentProjectConfig {
  const raw = mappingOf(input);
  const issues: ConfigIssue[] = [];
  const expanded = expandEnv(raw, [], opts.variables === 'refuse' ? null : opts.env, issues);
  const parsed = ExperimentProjectConfig.safeParse(expanded);
  if (!parsed.success) {
    // An unset variable leaves '' behind; zod's "too small" for the same field would only repeat it.
    const envPaths = new Set(issues.map((i) => i.path));
    throw new ProjectConfigError([...issues, ...zodIssuesToConfigIssues(parsed.error).filter((i) => !envPaths.has(i.path))]);
  }
  const withCassettes = resolveCassettes(parsed.data, opts, issues);
  const cfg = { ...withCassettes, repo: resolvedPath(withCassettes.repo, 'repo', opts, issues) };
  const agents: [string, { provider: string; fallback?: string }][] = [
    ...(cfg.proposer ? [['proposer', cfg.proposer] as [string, typeof cfg.proposer]] : []),
    ['interpreter', cfg.interpreter],
    ['critic', cfg.critic],
  ];
  crossCheckAgents(cfg, agents, opts.variables === 'refuse' ? null : opts.env, issues, 'the interpreter and critic');
  if (issues.length) throw new ProjectConfigError(issues);
  return cfg;
}
