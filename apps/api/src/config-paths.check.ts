import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { type AnyProjectConfig, autonomyPolicyIssues, type ConfigIssue, type ExperimentProjectConfig, isExperimentConfig, isPanelConfig, mergePolicyIssues, type OperatorPolicy, projectPolicyIssues, type ProviderConfig } from '@roundtable/contracts';
import { realPathOf } from './real-path';

/** A path a worker will read, by the field that names it. */
interface PathField {
  field: string;
  path: string;
  kind: 'file' | 'directory';
}

async function problemWith(given: string, real: string, kind: 'file' | 'directory'): Promise<string | null> {
  try {
    const s = await stat(real);
    if (kind === 'file' && !s.isFile()) return `${given} is not a file`;
    if (kind === 'directory' && !s.isDirectory()) return `${given} is not a directory`;
    await access(real, constants.R_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `${given} does not exist on the server`;
    if (code === 'EACCES' || code === 'EPERM') return `${given} is not readable by the api service`;
    return `${given} cannot be read (${code ?? (e as Error).message})`;
  }
}

/** What a submission check judges: a run's project file, or an experiment file (providers and a repo, no sandbox of its own). */
type CheckedConfig = AnyProjectConfig | ExperimentProjectConfig;

function pathFields(cfg: CheckedConfig): PathField[] {
  const fields: PathField[] = Object.entries(cfg.providers as Record<string, ProviderConfig>)
    .filter(([, pc]) => pc.type === 'replay')
    .map(([name, pc]) => ({ field: `providers.${name}.cassette`, path: (pc as { cassette: string }).cassette, kind: 'file' }));
  if ('repo' in cfg && cfg.repo) fields.push({ field: 'repo', path: cfg.repo, kind: 'directory' });
  return fields;
}

/**
 * A submission against the operator's policy (its providers, sandbox and limits), then the paths
 * a worker will read (replay cassettes, the repo) on this machine. Each path is judged against
 * the policy's roots on where it really leads (symlinks resolved), BEFORE anything looks at
 * whether it exists: a path outside the roots gets the one refusal whether it is there or not,
 * so the api is no oracle for what exists elsewhere on the server. Only a path inside the roots
 * is then checked for existence, kind and readability, which would otherwise fail minutes later
 * inside a worker. Every issue is returned at once.
 */
export async function submissionIssues(cfg: CheckedConfig, policy: OperatorPolicy): Promise<ConfigIssue[]> {
  const fields = pathFields(cfg);
  const reals = new Map<string, string | null>(await Promise.all(fields.map(async (f) => [f.field, await realPathOf(f.path)] as const)));
  // A symlink loop resolves nowhere; a path no root can hold stands in for it, so the roots refuse it.
  const realOf = (field: string, given: string) => (reals.has(field) ? (reals.get(field) ?? '/..') : given);
  const providers = Object.fromEntries(
    Object.entries(cfg.providers as Record<string, ProviderConfig>).map(([name, pc]) => [
      name,
      pc.type === 'replay' ? { ...pc, cassette: realOf(`providers.${name}.cassette`, pc.cassette) } : pc,
    ]),
  );
  // A panel has providers only: no repo, no sandbox, no tests. An experiment has a repo; its sandbox is the operator's.
  if (isExperimentConfig(cfg)) {
    // The method's timeout is a test run's: held to the sandbox's limit here, not first at the test-runner.
    const timeout = cfg.preregistration?.method.timeout_s;
    const issues = projectPolicyIssues({ providers, repo: realOf('repo', cfg.repo), ...(timeout !== undefined ? { test_timeout_s: timeout } : {}) }, policy).map((i) =>
      i.path === 'test_timeout_s' ? { ...i, path: 'preregistration.method.timeout_s' } : i,
    );
    return pathIssues(fields, reals, issues);
  }
  const build = isPanelConfig(cfg) ? undefined : cfg;
  const issues = projectPolicyIssues(
    {
      providers,
      sandbox: build?.sandbox,
      test_timeout_s: build?.test_timeout_s,
      repo: build?.repo ? realOf('repo', build.repo) : build?.repo,
    },
    policy,
  );
  if (build) issues.push(...autonomyPolicyIssues(build.autonomy, policy));
  // A run that may merge (the merge gate, autonomy 3) writes into the repo at its end: the policy's merge_roots must hold it.
  if (build?.merge && build.repo && !issues.some((i) => i.path === 'repo')) issues.push(...mergePolicyIssues(realOf('repo', build.repo), policy));
  return pathIssues(fields, reals, issues);
}

/** The policy's issues, then each path the policy did not refuse checked for existence, kind and readability. */
async function pathIssues(fields: PathField[], reals: Map<string, string | null>, issues: ConfigIssue[]): Promise<ConfigIssue[]> {
  const refused = new Set(issues.map((i) => i.path));
  const inside = fields.filter((f) => !refused.has(f.field));
  const problems = await Promise.all(inside.map(async (f) => ({ f, problem: await problemWith(f.path, reals.get(f.field) ?? f.path, f.kind) })));
  for (const { f, problem } of problems) if (problem) issues.push({ path: f.field, message: problem });
  return issues;
}
