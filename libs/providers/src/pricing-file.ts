import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadPricing, type PricingTable } from './pricing';

/** examples/pricing.yaml at the repository root: three levels above a service's bundle (or this source dir), else under cwd. */
export function defaultPricingFile(): string {
  const candidates = [path.resolve(__dirname, '../../../examples/pricing.yaml'), path.resolve(process.cwd(), 'examples/pricing.yaml')];
  return candidates.find((f) => existsSync(f)) ?? candidates[0];
}

/**
 * The pricing table, read once at start. A PRICING_FILE that cannot be read stops the service;
 * a missing default table only means every cost is NULL (unknown), never a guess.
 */
export function loadPricingTable(pricingFile: string | undefined, warn: (msg: string) => void): PricingTable {
  if (pricingFile) return loadPricing(pricingFile);
  const file = defaultPricingFile();
  if (!existsSync(file)) {
    warn(`no pricing table at ${file} (set PRICING_FILE): call costs will be recorded as unknown`);
    return { models: {} };
  }
  return loadPricing(file);
}
