import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import type { CliProbe, CliName, OperatorPolicy } from '@roundtable/contracts';
import { cliBinaryEnvVar, type CliUserDecision } from '@roundtable/providers';

const PROBE_TIMEOUT_MS = 3_000;

/** Where a CLI is, as its adapter will look for it: the policy's cli.binaries, ROUNDTABLE_<CLI>_BIN, else its name on PATH. */
function binaryOf(cli: CliName, policy: OperatorPolicy, env: NodeJS.ProcessEnv): string {
  return policy.cli.binaries[cli] ?? env[cliBinaryEnvVar(cli)] ?? cli;
}

function onPath(binary: string, env: NodeJS.ProcessEnv): boolean {
  const candidates = binary.includes('/') ? [binary] : (env.PATH ?? '').split(':').filter(Boolean).map((d) => path.join(d, binary));
  return candidates.some((c) => {
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The CLIs the policy allows, found or not, each with its `--version` line, for the provider
 * registry. Probed once at start with a short timeout. The child gets PATH only and runs as the
 * user a CLI call would (cli.run_as): a child of the worker's own uid could read the worker's
 * environment, its keys. Where no CLI may run (not root, no allow_same_user) only PATH is looked at.
 */
export async function probeClis(policy: OperatorPolicy, user: CliUserDecision, env: NodeJS.ProcessEnv = process.env): Promise<Partial<Record<CliName, CliProbe>>> {
  const probes = await Promise.all(
    policy.cli.allowed.map(async (cli): Promise<[CliName, CliProbe]> => {
      const binary = binaryOf(cli, policy, env);
      if (!onPath(binary, env)) return [cli, { found: false, version: null }];
      if (!user.ok) return [cli, { found: true, version: null }];
      const ids = user.user.kind === 'run_as' ? { uid: user.user.uid, gid: user.user.gid } : {};
      const out = await execa(binary, ['--version'], {
        env: { PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin' },
        extendEnv: false,
        cwd: '/',
        stdin: 'ignore',
        timeout: PROBE_TIMEOUT_MS,
        reject: false,
        ...ids,
      });
      const line = out.exitCode === 0 ? String(out.stdout).split('\n')[0]?.trim().slice(0, 200) : '';
      return [cli, { found: true, version: line || null }];
    }),
  );
  return Object.fromEntries(probes);
}
