import path from 'node:path';
import { loadPricing, parsePricing, priceCall } from './pricing';

const table = loadPricing(path.resolve(__dirname, '../../../examples/pricing.yaml'));
const usage = { inputTokens: 1_000_000, outputTokens: 100_000, cachedInputTokens: 400_000 };

describe('priceCall', () => {
  it('prices a listed model from the table, cached tokens at the cached rate', () => {
    // 600k × $3 + 400k × $0.30 + 100k × $15, per Mtok
    expect(priceCall(table, 'claude-sonnet-4-5', usage, 0.99)).toEqual({ costUsd: 1.8 + 0.12 + 1.5, costSource: 'table' });
  });

  it('finds a dated model id under its undated name', () => {
    expect(priceCall(table, 'claude-sonnet-4-5-20250929', usage, null).costSource).toBe('table');
  });

  it("falls back to the CLI's estimate, then to null, never a guess", () => {
    expect(priceCall(table, 'qwen3:30b', usage, 0.0123)).toEqual({ costUsd: 0.0123, costSource: 'cli_estimate' });
    expect(priceCall(table, 'qwen3:30b', usage, null)).toEqual({ costUsd: null, costSource: null });
  });

  it('prices cached tokens at the input rate when the table has no cached price, rounded to 6 places', () => {
    const t = parsePricing('models:\n  m: { input: 1.1, output: 2.2 }\n');
    expect(priceCall(t, 'm', { inputTokens: 3, outputTokens: 7, cachedInputTokens: 1 }, null)).toEqual({ costUsd: 0.000019, costSource: 'table' });
  });
});

it('rejects a malformed pricing file with the path and field', () => {
  expect(() => parsePricing('models:\n  m: { input: -1, output: 2 }\n', 'x.yaml')).toThrow(/x\.yaml is malformed: models\.m\.input/);
  expect(() => loadPricing('/nonexistent/pricing.yaml')).toThrow(/cannot be read/);
});
