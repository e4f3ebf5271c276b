import { realpathSync } from 'node:fs';
import path from 'node:path';
import { agentJsonSchema, type AgentSchemaName, type ProviderConfig } from '@roundtable/contracts';

/** What a provider request is built from, shared by the run's calls and the playground's. */

/** A replay cassette is checked where it really is (symlinks resolved), as the adapter will open it. */
export function asChecked(cfg: ProviderConfig): ProviderConfig {
  if (cfg.type !== 'replay') return cfg;
  const abs = path.resolve(cfg.cassette);
  try {
    return { ...cfg, cassette: realpathSync(abs) };
  } catch {
    return { ...cfg, cassette: abs }; // missing: refused by the roots or, inside them, by the adapter
  }
}

/**
 * agentJsonSchema, converted once per schema (the zod → JSON Schema conversion cost about a
 * millisecond per call) and handed out as a fresh object each time, since an adapter may
 * adjust the one it gets.
 */
const jsonSchemaText = new Map<AgentSchemaName, string>();
export function jsonSchemaOf(name: AgentSchemaName): Record<string, unknown> {
  let text = jsonSchemaText.get(name);
  if (text === undefined) jsonSchemaText.set(name, (text = JSON.stringify(agentJsonSchema(name))));
  return JSON.parse(text) as Record<string, unknown>;
}

