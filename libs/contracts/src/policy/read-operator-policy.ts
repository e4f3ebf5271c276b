import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_OPERATOR_POLICY, OperatorPolicy } from './operator-policy.schema';

export class OperatorPolicyError extends Error {
  readonly code = 'INVALID_OPERATOR_POLICY';
}

/** The policy in force and where it came from (null: no ROUNDTABLE_POLICY, the defaults). */
export interface LoadedPolicy {
  policy: OperatorPolicy;
  source: string | null;
}

/**
 * Parses a policy file's text. Relative paths under repos.roots, repos.merge_roots and
 * cassettes.roots are resolved against `baseDir` (the policy file's directory), so a policy kept
 * beside its deployment works from any working directory. Errors name each line and the fix.
 */
export function parseOperatorPolicy(text: string, baseDir: string, source = 'ROUNDTABLE_POLICY'): OperatorPolicy {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (e) {
    throw new OperatorPolicyError(`${source}: malformed YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new OperatorPolicyError(`${source}: a policy is a YAML mapping (api_keys, cli, repos, cassettes, sandbox …)`);
  const absolute = (r: Record<string, unknown>, key: 'repos' | 'cassettes', list: 'roots' | 'merge_roots') => {
    const section = r[key] as Record<string, unknown> | undefined;
    const paths = section?.[list];
    if (section && Array.isArray(paths)) {
      section[list] = paths.map((p) => (typeof p === 'string' && !p.startsWith('/') ? path.resolve(baseDir, p) : p));
    }
  };
  absolute(raw as Record<string, unknown>, 'repos', 'roots');
  absolute(raw as Record<string, unknown>, 'repos', 'merge_roots');
  absolute(raw as Record<string, unknown>, 'cassettes', 'roots');
  const parsed = OperatorPolicy.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new OperatorPolicyError(`${source}: invalid operator policy\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The policy a service enforces: the file ROUNDTABLE_POLICY names, or the safe defaults without one. Read once at start. */
export function readOperatorPolicy(env: NodeJS.ProcessEnv = process.env): LoadedPolicy {
  const file = env.ROUNDTABLE_POLICY?.trim();
  if (!file) return { policy: DEFAULT_OPERATOR_POLICY, source: null };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new OperatorPolicyError(`ROUNDTABLE_POLICY=${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); point it at the operator's policy file, or unset it for the safe defaults`);
  }
  return { policy: parseOperatorPolicy(text, path.dirname(path.resolve(file)), `ROUNDTABLE_POLICY=${file}`), source: path.resolve(file) };
}
