import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Usage } from './provider';

/** USD per million tokens, by model id as written in a project file (examples/pricing.yaml). */
export const ModelPrice = z
  .object({ input: z.number().nonnegative(), output: z.number().nonnegative(), cached_input: z.number().nonnegative().optional() })
  .strict();
export type ModelPrice = z.infer<typeof ModelPrice>;
export const PricingTable = z.object({ models: z.record(z.string().min(1), ModelPrice).default({}) });
export type PricingTable = z.infer<typeof PricingTable>;

export type CostSource = 'table' | 'cli_estimate';
export interface PricedCall {
  costUsd: number | null;
  costSource: CostSource | null;
}

export function parsePricing(yamlText: string, origin = 'pricing file'): PricingTable {
  let raw: unknown;
  try {
    raw = parseYaml(yamlText);
  } catch (e) {
    throw new Error(`${origin} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const parsed = PricingTable.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new Error(`${origin} is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

export function loadPricing(path: string): PricingTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`pricing file ${path} cannot be read: ${(e as Error).message}`);
  }
  return parsePricing(text, `pricing file ${path}`);
}

/** The table's entry for a model; a dated id (claude-sonnet-4-5-20250929) falls back to its undated name. */
export function priceOf(pricing: PricingTable, model: string): ModelPrice | null {
  const exact = pricing.models[model];
  if (exact) return exact;
  const undated = model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  return undated !== model ? (pricing.models[undated] ?? null) : null;
}

/**
 * A call's cost: the table price when the model is listed, else the CLI's own estimate,
 * else null, never a guess, so a report never shows an invented figure. Cached prompt
 * tokens are priced at `cached_input` (input price when the table has none).
 */
export function priceCall(pricing: PricingTable, model: string, usage: Usage, reportedCostUsd: number | null): PricedCall {
  const price = priceOf(pricing, model);
  if (price) {
    const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
    const usd =
      ((usage.inputTokens - cached) * price.input + cached * (price.cached_input ?? price.input) + usage.outputTokens * price.output) / 1_000_000;
    return { costUsd: Math.round(usd * 1e6) / 1e6, costSource: 'table' };
  }
  if (reportedCostUsd !== null && Number.isFinite(reportedCostUsd)) return { costUsd: reportedCostUsd, costSource: 'cli_estimate' };
  return { costUsd: null, costSource: null };
}
