import type { ConfigIssue } from '../config/load-project-config';
import type { ProviderConfig } from '../config/project-config.schema';
import type { SandboxConfig } from '../config/sandbox-config.schema';
import { DEFAULT_BASE_URLS, type KeyedProviderType, type OperatorPolicy } from './operator-policy.schema';
import { pathUnderRoots } from './path-under-roots';

export { pathUnderRoots };

/**
 * The pure half of the trust boundary: does a request fit the operator's policy? The api runs
 * these on a submission and the worker that acts runs them again on what it is about to do.
 * Every message names the policy line that would have to change, so a refused user knows
 * whom to ask and for what. Paths are compared as given: callers resolve symlinks first
 * (realpath) and pass the real path.
 */

const POLICY = 'the operator policy (ROUNDTABLE_POLICY)';

function parts(url: string): { scheme: string; host: string; port: string; path: string } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.username || u.password) return null;
  const port = u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
  // Stryker disable next-line MethodExpression: a hostname is ASCII (punycode, or percent-encoded for other schemes), where upper- and lower-casing fold alike
  return { scheme: u.protocol, host: u.hostname.toLowerCase(), port, path: u.pathname };
}

const segments = (p: string) => p.split('/').filter(Boolean);

/** Whether `url` matches one of the patterns: same scheme, host and port (`*`: any), and a path under the pattern's. */
export function urlAllowed(url: string, patterns: readonly string[]): boolean {
  const u = parts(url);
  if (!u) return false;
  return patterns.some((pattern) => {
    const anyPort = /^[a-z]+:\/\/[^/]+:\*/i.test(pattern);
    const p = parts(anyPort ? pattern.replace(/:\*/, '') : pattern);
    if (!p || p.scheme !== u.scheme || p.host !== u.host) return false;
    if (!anyPort && p.port !== u.port) return false;
    const want = segments(p.path);
    const have = segments(u.path);
    return want.every((s, i) => have[i] === s);
  });
}


const list = (xs: readonly string[]) => (xs.length ? `[${xs.join(', ')}]` : '[] (none)');

/** A provider entry against the policy: its key variable, the URL the key goes to, the CLI it names. */
export function providerPolicyIssues(name: string, pc: ProviderConfig, policy: OperatorPolicy): ConfigIssue[] {
  const at = (field: string) => `providers.${name}.${field}`;
  switch (pc.type) {
    case 'anthropic':
    case 'openai_compat':
    case 'gemini': {
      const rule = policy.api_keys[pc.api_key_env];
      if (!rule) {
        return [
          {
            path: at('api_key_env'),
            message: `${pc.api_key_env} is not a provider key in ${POLICY}; keys: ${list(Object.keys(policy.api_keys))} (the operator adds it under api_keys, for provider "${name}" to be called)`,
          },
        ];
      }
      if (rule.provider_type !== pc.type) {
        return [
          {
            path: at('api_key_env'),
            message: `${pc.api_key_env} is a key of provider type ${rule.provider_type}, not ${pc.type}, in ${POLICY} (api_keys.${pc.api_key_env}.provider_type)`,
          },
        ];
      }
      const url = pc.base_url ?? DEFAULT_BASE_URLS[pc.type as KeyedProviderType];
      if (!urlAllowed(url, rule.base_urls)) {
        return [
          {
            path: pc.base_url ? at('base_url') : at('api_key_env'),
            message: `${pc.api_key_env} may only be sent to ${list(rule.base_urls)}, not ${url}, by ${POLICY} (api_keys.${pc.api_key_env}.base_urls)`,
          },
        ];
      }
      return [];
    }
    case 'ollama':
      return urlAllowed(pc.host, policy.ollama.hosts)
        ? []
        : [{ path: at('host'), message: `${pc.host} is not an Ollama host allowed by ${POLICY}; allowed: ${list(policy.ollama.hosts)} (ollama.hosts)` }];
    case 'cli':
      return policy.cli.allowed.includes(pc.cli)
        ? []
        : [{ path: at('cli'), message: `the ${pc.cli} CLI is not offered by ${POLICY}; offered: ${list(policy.cli.allowed)} (cli.allowed)` }];
    case 'replay':
      return pathUnderRoots(pc.cassette, policy.cassettes.roots)
        ? []
        : [
            {
              path: at('cassette'),
              message: `cassettes may only be read from ${list(policy.cassettes.roots)} by ${POLICY} (cassettes.roots); this path is outside them`,
            },
          ];
  }
}

/**
 * The sandbox a build asks for against the policy's limits. `defaultImage`: the test-runner's
 * SANDBOX_IMAGE, which it allows besides the policy's list (the api, not knowing it, checks the
 * list alone). `engineCpus`: the test-runner's Docker engine, which caps cpus further.
 */
export function sandboxPolicyIssues(
  cfg: { sandbox?: SandboxConfig; test_timeout_s?: number },
  policy: OperatorPolicy,
  opts: { defaultImage?: string; engineCpus?: number } = {},
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  // Stryker disable next-line ObjectLiteral,StringLiteral: a docker sandbox that sets nothing has no limit or image to check, the same as no runner
  const s = cfg.sandbox ?? { runner: 'docker' as const };
  const max = policy.sandbox;
  if (s.runner === 'process' && !max.allow_process) {
    issues.push({
      path: 'sandbox.runner',
      message: `process (tests outside the sandbox) is not allowed by ${POLICY} (sandbox.allow_process: false); use docker, the default`,
    });
  }
  if (s.runner === 'docker') {
    if (s.image !== undefined && s.image !== opts.defaultImage && !max.images.includes(s.image)) {
      issues.push({
        path: 'sandbox.image',
        message: `${s.image} is not an image allowed by ${POLICY}; allowed: ${list(max.images)} besides the test-runner's default (sandbox.images), or leave image unset`,
      });
    }
    const over = (field: string, value: number | undefined, limit: number, line: string) => {
      if (value !== undefined && value > limit) {
        issues.push({ path: `sandbox.${field}`, message: `${value} is over the limit of ${limit} set by ${POLICY} (sandbox.${line})` });
      }
    };
    over('memory_mb', s.memory_mb, max.max_memory_mb, 'max_memory_mb');
    over('pids', s.pids, max.max_pids, 'max_pids');
    over('cpus', s.cpus, max.max_cpus, 'max_cpus');
    if (opts.engineCpus !== undefined && s.cpus !== undefined && s.cpus > opts.engineCpus && s.cpus <= max.max_cpus) {
      issues.push({ path: 'sandbox.cpus', message: `${s.cpus} is more than the Docker engine's ${opts.engineCpus} CPUs; ask for at most ${opts.engineCpus}` });
    }
  }
  if (cfg.test_timeout_s !== undefined && cfg.test_timeout_s > max.max_timeout_s) {
    issues.push({ path: 'test_timeout_s', message: `${cfg.test_timeout_s} is over the limit of ${max.max_timeout_s} s set by ${POLICY} (sandbox.max_timeout_s)` });
  }
  return issues;
}

/** `repo` (already resolved to its real path by the caller) against the policy's roots. */
export function repoPolicyIssues(realRepo: string, policy: OperatorPolicy): ConfigIssue[] {
  return pathUnderRoots(realRepo, policy.repos.roots)
    ? []
    : [{ path: 'repo', message: `repositories may only be read from ${list(policy.repos.roots)} by ${POLICY} (repos.roots); this path is outside them` }];
}

/**
 * A merge of a run branch into `repo` (already resolved to its real path by the caller) against
 * the policy: merging writes into an operator's directory, so reading it (repos.roots) is not
 * enough; it must also lie under one of repos.merge_roots.
 */
export function mergePolicyIssues(realRepo: string, policy: OperatorPolicy): ConfigIssue[] {
  return pathUnderRoots(realRepo, policy.repos.merge_roots)
    ? []
    : [
        {
          path: 'merge.into',
          message: `run branches may only be merged into repositories under ${list(policy.repos.merge_roots)} by ${POLICY} (repos.merge_roots); ${realRepo} is outside them: the operator adds its directory to repos.merge_roots, or drop merge from the project and merge the run branch by hand`,
        },
      ];
}

/**
 * `autonomy: 3` against the policy: it merges a solved run branch with no person approving,
 * which only the operator may allow (approvals.autonomous_merge).
 */
export function autonomyPolicyIssues(autonomy: number, policy: OperatorPolicy): ConfigIssue[] {
  return autonomy === 3 && !policy.approvals.autonomous_merge
    ? [
        {
          path: 'autonomy',
          message: `autonomy 3 merges a run branch with no person approving, which ${POLICY} does not allow (approvals.autonomous_merge is false): use autonomy: 2 with approvals: [merge], or the operator sets approvals.autonomous_merge: true`,
        },
      ]
    : [];
}

/** Every provider of a project file, its sandbox, and the repo as written (callers check the real path again). */
export function projectPolicyIssues(
  cfg: { providers: Record<string, ProviderConfig>; sandbox?: SandboxConfig; test_timeout_s?: number; repo?: string | null },
  policy: OperatorPolicy,
): ConfigIssue[] {
  const issues = Object.entries(cfg.providers).flatMap(([name, pc]) => providerPolicyIssues(name, pc, policy));
  issues.push(...sandboxPolicyIssues(cfg, policy));
  if (cfg.repo) issues.push(...repoPolicyIssues(cfg.repo, policy));
  return issues;
}
