import { ProviderError } from '../provider';

/**
 * Reads the key from the variable the project file names, at call time, so a key set or
 * rotated after the worker started is used, and a missing one is named in the step's error.
 */
export function readApiKey(provider: string, envName: string, env: NodeJS.ProcessEnv): string {
  const key = env[envName]?.trim();
  if (!key) {
    throw new ProviderError('AUTH', `${provider}: no API key: the environment variable ${envName} is not set for the provider-worker`, false);
  }
  return key;
}
