import { realpathSync } from 'node:fs';
import path from 'node:path';
import { AGENT_SCHEMAS, agentJsonSchema, formatZodIssues, modelIdProblem, ProviderConfig, providerPolicyIssues, type AgentSchemaName, type OperatorPolicy, type ToolSpec } from '@roundtable/contracts';
import type { Completion } from '@roundtable/providers';

/** What a provider request is built from and its reply is checked by, shared by the run's calls and the playground's. */

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


/** A call that cannot be sent, in the words recorded on its row. */
export interface Refusal {
  errorCode: 'POLICY_REFUSED' | 'BAD_REQUEST';
  error: string;
}

/**
 * A run's stored provider entry and model, held to the operator's policy again before an adapter
 * exists (defence in depth: the api checked them at submission; a row written around it is refused
 * here, so no key leaves this process and nothing is sent). The entry is read back as the schema
 * reads a project file (a row may name a `binary`, or anything else the schema refuses); the model
 * id goes onto a CLI's command line and into an API's URL path.
 */
export function admittedProvider(name: string, stored: unknown, model: string, policy: OperatorPolicy): { cfg: ProviderConfig } | Refusal {
  const entry = ProviderConfig.safeParse(stored);
  if (!entry.success) return { errorCode: 'POLICY_REFUSED', error: entry.error.issues.map((i) => `providers.${name}.${i.path.join('.')}: ${i.message}`).join('; ') };
  const cfg = asChecked(entry.data);
  const refused = providerPolicyIssues(name, cfg, policy);
  if (refused.length) return { errorCode: 'POLICY_REFUSED', error: refused.map((i) => `${i.path}: ${i.message}`).join('; ') };
  const badModel = modelIdProblem(model);
  if (badModel) return { errorCode: 'BAD_REQUEST', error: `model: ${badModel}` };
  return { cfg };
}

/** What a reply is recorded as: a tool loop's turn is the tools the model called (the replay provider plays them as a recorded object). */
export function replyOf(completion: Completion, tools: ToolSpec[] | undefined): unknown {
  if (!tools || !completion.toolCalls) return completion.parsed;
  return { tool_calls: completion.toolCalls, text: completion.text, ...(completion.native ? { native: completion.native } : {}) };
}

/** A reply against the call's schema: valid with what the schema made of it, or why not (the repair call's words). */
export function checkedReply(schemaName: AgentSchemaName, parsed: unknown): { valid: true; parsed: Record<string, unknown> } | { valid: false; errorCode: 'SCHEMA_INVALID'; error: string } {
  if (parsed === null || parsed === undefined) return { valid: false, errorCode: 'SCHEMA_INVALID', error: 'the reply is not a JSON object' };
  const checked = AGENT_SCHEMAS[schemaName].safeParse(parsed);
  return checked.success ? { valid: true, parsed: checked.data as Record<string, unknown> } : { valid: false, errorCode: 'SCHEMA_INVALID', error: formatZodIssues(checked.error) };
}
