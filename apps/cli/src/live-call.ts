import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { expandEnv, liftNestedProject, OperatorPolicy, ProviderConfig, type ConfigIssue } from '@roundtable/contracts';
import { cliBinaryEnvVar, createProvider, loadPricing, priceCall, type Completion, type PricedCall, type PricingTable, type Provider } from '@roundtable/providers';
import { ProjectFileError } from './project-file';

/** The one tiny schema of a live check: enough to prove structured output works end to end. */
export const LiveAnswer = z.object({ answer: z.string() }).strict();
const LIVE_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string', description: 'the answer, in one short sentence' } },
  required: ['answer'],
  additionalProperties: false,
};

/** Provider entries and models used when no project file is given: the usual names, keys from the usual variables. */
const BUILT_IN: Record<string, { cfg: ProviderConfig; model: string }> = {
  anthropic: { cfg: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' }, model: 'claude-haiku-4-5' },
  openai: { cfg: { type: 'openai_compat', api_key_env: 'OPENAI_API_KEY' }, model: 'gpt-5-mini' },
  xai: { cfg: { type: 'openai_compat', api_key_env: 'XAI_API_KEY', base_url: 'https://api.x.ai/v1' }, model: 'grok-4' },
  gemini: { cfg: { type: 'gemini', api_key_env: 'GEMINI_API_KEY' }, model: 'gemini-2.5-flash' },
  ollama: { cfg: { type: 'ollama', host: 'http://localhost:11434' }, model: 'qwen3:30b-a3b' },
  claude_cli: { cfg: { type: 'cli', cli: 'claude' }, model: 'default' },
  codex_cli: { cfg: { type: 'cli', cli: 'codex' }, model: 'default' },
  grok_cli: { cfg: { type: 'cli', cli: 'grok' }, model: 'default' },
  gemini_cli: { cfg: { type: 'cli', cli: 'gemini' }, model: 'default' },
  agy_cli: { cfg: { type: 'cli', cli: 'agy' }, model: 'default' },
};

export interface LiveTarget {
  name: string;
  cfg: ProviderConfig;
  model: string;
}

/**
 * The provider entry to check: from the project file (only that entry is read and validated,
 * so other providers' missing keys do not matter), else a built-in default for the usual names.
 * The model is `--model`, else the first role on that provider, else the built-in default.
 */
export function resolveLiveTarget(name: string, opts: { configFile?: string; model?: string; cwd: string; env: Record<string, string | undefined> }): LiveTarget {
  if (!opts.configFile) {
    const builtIn = BUILT_IN[name];
    if (!builtIn) throw new ProjectFileError(`no built-in provider "${name}" (known: ${Object.keys(BUILT_IN).join(', ')}); name a project file with --config`);
    return { name, cfg: builtIn.cfg, model: opts.model ?? builtIn.model };
  }
  const file = path.resolve(opts.cwd, opts.configFile);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ProjectFileError(`cannot read ${opts.configFile}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!raw || typeof raw !== 'object') throw new ProjectFileError(`${opts.configFile} is not a YAML mapping`);
  const doc = liftNestedProject(raw as Record<string, unknown>) as { providers?: Record<string, unknown>; agents?: Record<string, { provider?: unknown; model?: unknown }> };
  const entry = doc.providers?.[name];
  if (entry === undefined) {
    throw new ProjectFileError(`${opts.configFile} declares no provider "${name}" (it has: ${Object.keys(doc.providers ?? {}).join(', ') || 'none'})`);
  }
  const issues: ConfigIssue[] = [];
  const expanded = expandEnv(entry, ['providers', name], opts.env, issues);
  const parsed = ProviderConfig.safeParse(expanded);
  if (issues.length || !parsed.success) {
    const problems = [...issues.map((i) => `${i.path}: ${i.message}`), ...(parsed.success ? [] : parsed.error.issues.map((i) => `providers.${name}.${i.path.join('.')}: ${i.message}`))];
    throw new ProjectFileError(`providers.${name} in ${opts.configFile} is not usable:\n  ${problems.join('\n  ')}`);
  }
  const role = Object.values(doc.agents ?? {}).find((a) => a?.provider === name);
  const roleModel = typeof role?.model === 'string' ? (expandEnv(role.model, [], opts.env, []) as string) : undefined;
  const model = opts.model ?? (roleModel || undefined) ?? BUILT_IN[name]?.model ?? 'default';
  return { name, cfg: parsed.data, model };
}

/** Why the check cannot run here (no key, no CLI binary), or null when it can. */
export function skipReason(t: LiveTarget, env: Record<string, string | undefined>): string | null {
  if ('api_key_env' in t.cfg && !env[t.cfg.api_key_env]) {
    return `${t.name} needs the environment variable ${t.cfg.api_key_env}, which is not set; nothing was called`;
  }
  if (t.cfg.type === 'cli') {
    const binary = env[cliBinaryEnvVar(t.cfg.cli)] ?? t.cfg.cli;
    if (!onPath(binary, env.PATH ?? '')) return `${t.name} needs the ${t.cfg.cli} CLI ("${binary}"), which is not on PATH; nothing was called`;
  }
  return null;
}

function onPath(binary: string, pathVar: string): boolean {
  if (binary.includes('/')) return existsSync(binary);
  return pathVar.split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, binary)));
}

/** examples/pricing.yaml beside the bundle (dist/apps/cli → repository root), else under cwd. */
export function livePricing(file: string | undefined, cwd: string): { table: PricingTable; file: string | null } {
  const candidates = file ? [path.resolve(cwd, file)] : [path.resolve(__dirname, '../../../examples/pricing.yaml'), path.resolve(cwd, 'examples/pricing.yaml')];
  const found = candidates.find((f) => existsSync(f));
  if (file && !found) throw new ProjectFileError(`pricing file ${file} does not exist`);
  return found ? { table: loadPricing(found), file: found } : { table: { models: {} }, file: null };
}

export interface LiveResult {
  completion: Completion;
  answer: z.infer<typeof LiveAnswer> | null;
  /** Why the reply did not validate, when it did not. */
  invalid: string | null;
  price: PricedCall;
}

const LOCAL_CHECK_POLICY = OperatorPolicy.parse({ cli: { allow_same_user: true } });

/** The provider's real adapter, run from this machine (`call`, `eval panel --grader`). */
export function liveProvider(t: LiveTarget, env: NodeJS.ProcessEnv): Provider {
  // The user's own machine and credentials: a CLI runs as the user who asked (there are no
  // worker secrets here to keep from it), where a provider-worker would need the operator's word.
  return createProvider(t.name, t.cfg, { env, policy: LOCAL_CHECK_POLICY });
}

/** One structured call, the way the provider-worker makes it (SDK retries off, our timeout). */
export async function liveCall(t: LiveTarget, prompt: string, opts: { env: NodeJS.ProcessEnv; timeoutMs: number; pricing: PricingTable }): Promise<LiveResult> {
  const provider = liveProvider(t, opts.env);
  const completion = await provider.run({
    messages: [
      { role: 'system', content: 'You are a connectivity check. Reply with one JSON object {"answer": "..."}; keep the answer to one short sentence.' },
      { role: 'user', content: prompt },
    ],
    model: t.model,
    schemaName: 'LiveAnswer',
    jsonSchema: LIVE_SCHEMA,
    maxTokens: 512,
    temperature: 0,
    timeoutMs: opts.timeoutMs,
    role: 'live_check',
    ordinal: 0,
  });
  const checked = LiveAnswer.safeParse(completion.parsed);
  return {
    completion,
    answer: checked.success ? checked.data : null,
    invalid: checked.success ? null : completion.parsed === null ? 'the reply is not a JSON object' : checked.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '),
    price: priceCall(opts.pricing, completion.model || t.model, completion.usage, completion.reportedCostUsd),
  };
}
