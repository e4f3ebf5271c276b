import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { gitEnv } from '@roundtable/sandbox';

/**
 * The people-in-the-loop suites' repositories and policy: fresh git copies of the calc fixture,
 * and the suite's operator policy with merges allowed under `<tmp>/mergeable` only (repositories
 * may be read anywhere under `<tmp>`), so a merge can never reach this checkout.
 */

export const FIXTURES = path.resolve(__dirname, '../../fixtures/repos');
const POLICY = path.resolve(__dirname, '../../fixtures/policy/test-policy.yaml');
const REPO_ROOT = path.resolve(__dirname, '../../..');

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=fixture', '-c', 'user.email=fixture@localhost', '--no-optional-locks', ...args], { cwd, env: gitEnv(), encoding: 'utf8' });

/** A fresh copy of the calc fixture as a git repository (branch main, one commit) at `<dir>/<name>`. */
export function makeCalcRepo(dir: string, name: string): string {
  const repo = path.join(dir, name);
  cpSync(path.join(FIXTURES, 'calc'), repo, { recursive: true });
  git(repo, 'init', '-q', '--initial-branch=main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'calc fixture');
  return repo;
}

/** Makes `<tmp>/mergeable` and `<tmp>/readonly`, writes the policy file, and answers the three paths. */
export function mergePolicy(tmp: string): { mergeable: string; readonly: string; policyFile: string } {
  const mergeable = path.join(tmp, 'mergeable');
  const readonly = path.join(tmp, 'readonly');
  mkdirSync(mergeable);
  mkdirSync(readonly);
  const policy = parseYaml(readFileSync(POLICY, 'utf8')) as Record<string, unknown>;
  policy.repos = { roots: [REPO_ROOT, tmp], merge_roots: [mergeable] };
  policy.cassettes = { roots: [REPO_ROOT, tmp] };
  // The autonomy-3 test merges with no person: this operator allows it (the default does not).
  policy.approvals = { autonomous_merge: true };
  const policyFile = path.join(tmp, 'policy.yaml');
  writeFileSync(policyFile, toYaml(policy));
  return { mergeable, readonly, policyFile };
}
