/**
 * The environment a CLI child gets: ours minus credentials it does not own. Dropping the
 * API keys is what keeps `claude -p` on the subscription login (it prefers
 * ANTHROPIC_API_KEY when one is set) so `billing: subscription` stays true; dropping the
 * store's URLs keeps them out of a model-driven process.
 */
const SECRET_NAME = /(_API_KEY|_AUTH_TOKEN|PASSWORD)$|^(DATABASE_URL|REDIS_URL)$/;

export function cliChildEnv(base: NodeJS.ProcessEnv, keep: readonly string[] = [], extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined) continue;
    if (SECRET_NAME.test(k) && !keep.includes(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}
