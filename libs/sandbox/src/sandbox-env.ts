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

/** The names a test run's request may set (TestRunRequest.env): upper case, digits and underscores. */
export const REQUEST_ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** Set by the sandbox itself in both runners (or how they run): a request may not replace them. */
const SANDBOX_OWN_NAMES: ReadonlySet<string> = new Set([...SANDBOX_ENV_ALLOWLIST, 'HOME', 'PYTHONDONTWRITEBYTECODE', 'PYTHONUNBUFFERED']);

/**
 * The variables a request adds to the command's environment (an experiment's ROUNDTABLE_METRICS),
 * checked: a name outside REQUEST_ENV_NAME, a secret-looking name, one the sandbox sets itself
 * (PATH, HOME …) or a value holding a NUL byte is an error, never passed on or silently dropped.
 * They are our own code's values, never the runner's environment.
 */
export function requestEnv(env: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!REQUEST_ENV_NAME.test(name)) throw new Error(`sandbox env: ${JSON.stringify(name)} is not a usable variable name (${REQUEST_ENV_NAME.source})`);
    if (isSecretEnvName(name)) throw new Error(`sandbox env: ${name} looks like a secret's name; secrets never reach the sandbox`);
    if (SANDBOX_OWN_NAMES.has(name)) throw new Error(`sandbox env: ${name} is set by the sandbox itself`);
    if (typeof value !== 'string' || value.includes('\0')) throw new Error(`sandbox env: the value of ${name} is not a string without NUL bytes`);
    checked[name] = value;
  }
  return checked;
}
