/**
 * Names passed through from the runner's own environment. An allowlist, not a denylist:
 * a new secret added to the host environment must not reach model-written code by default.
 */
export const SANDBOX_ENV_ALLOWLIST: readonly string[] = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'PYENV_ROOT', 'PYENV_VERSION'];

/** Second line of defence: these never pass, even when someone allowlists them by name. */
const SECRET_NAME = /(_API_KEY|_TOKEN|_SECRET)$|PASSWORD/i;

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface SandboxEnvOptions {
  /** Scratch HOME, so tools that write dotfiles do not touch the real home directory. */
  home?: string;
  /** Extra names to pass through; secret-looking names are still dropped. */
  allow?: readonly string[];
}

export function sandboxEnv(base: NodeJS.ProcessEnv, opts: SandboxEnvOptions = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...SANDBOX_ENV_ALLOWLIST, ...(opts.allow ?? [])]) {
    const value = base[name];
    if (value !== undefined) env[name] = value;
  }
  // Bytecode and buffering: keep the workspace free of .pyc litter and keep output ordered
  // when a timeout cuts the run short.
  env.PYTHONDONTWRITEBYTECODE = '1';
  env.PYTHONUNBUFFERED = '1';
  if (opts.home !== undefined) env.HOME = opts.home;

  for (const name of Object.keys(env)) {
    if (isSecretEnvName(name)) delete env[name];
  }
  return env;
}
