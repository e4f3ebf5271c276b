import { JUDGES, type JudgeRole } from '@roundtable/contracts';
import type { PriceLookup } from '../engine/call-types';
import { priced } from '../engine/workflow-driver.fixture';
import { PanelDriver, testPanelConfig, verdictBody } from './panel-scenario.fixture';

/**
 * Issue 13 item 3: five judges dispatched at once reserve the worst case of every cap — prompt
 * estimate + max_tokens, and that at the table price — so together they stop at a tight
 * max_tokens or max_cost_usd instead of overshooting it.
 */

const PRICES: PriceLookup = () => ({ inputPerMtok: 3, outputPerMtok: 15 });

/** The five roast calls as a loose budget queues them (their worst cases, in dispatch order). */
function roastCalls(prices?: PriceLookup) {
  const d = new PanelDriver(testPanelConfig());
  if (prices) priced(d, prices);
  d.start();
  return d.calls;
}

describe('panel workflow: worst-case reservations', () => {
  it('each judge reserves its prompt estimate + max_tokens, and that at the table price', () => {
    for (const c of roastCalls(PRICES)) {
      expect(c.reservedTokens).toBe(c.estimatedTokens + 2000);
      expect(c.reservedCostUsd).toBeCloseTo((c.estimatedTokens * 3 + 2000 * 15) / 1_000_000, 12);
    }
    expect(roastCalls().every((c) => c.reservedCostUsd === 0)).toBe(true); // no prices: no USD reserved
  });

  it('five parallel judges against a tight max_tokens: the ones that fit are asked, the run halts at the cap', () => {
    const loose = roastCalls();
    const cap = loose.slice(0, 3).reduce((n, c) => n + c.reservedTokens, 0) + loose[3].reservedTokens - 1;
    const d = new PanelDriver(testPanelConfig({ budget: { max_tokens: cap } }));
    const r = d.start();
    expect(d.calls.map((c) => c.role)).toEqual(JUDGES.slice(0, 3));
    expect(d.eventsOf('judges_dispatched')).toEqual([{ judges: JUDGES.slice(0, 3) }]);
    expect(r.state).toMatchObject({ stage: 'HALTED' });
    expect(r.state.haltReason).toMatch(/^max_tokens would be exceeded: \d+ tokens used or reserved \+ \d+ estimated for the next call > \d+$/);
    expect(d.state.usage.reserved.tokens).toBeLessThanOrEqual(cap);

    // The three land, each using at most its worst case; only then the moderator's one call.
    for (const c of [...d.inFlight]) d.reply(c.role, verdictBody(c.role as JudgeRole), { tokens: c.reservedTokens });
    expect(d.state.usage.used.tokens).toBeLessThanOrEqual(cap);
    expect(d.calls.filter((c) => c.role === 'moderator')).toHaveLength(1);
  });

  it('five parallel judges against a tight max_cost_usd stop at the cap, not past it', () => {
    const loose = roastCalls(PRICES);
    const cap = loose[0].reservedCostUsd + loose[1].reservedCostUsd + loose[2].reservedCostUsd / 2;
    const d = priced(new PanelDriver(testPanelConfig({ budget: { max_cost_usd: cap } })), PRICES);
    const r = d.start();
    expect(d.calls.map((c) => c.role)).toEqual(JUDGES.slice(0, 2));
    expect(r.state.haltReason).toMatch(/^max_cost_usd would be exceeded: /);
    expect(d.state.usage.reserved.costUsd).toBeLessThanOrEqual(cap);
  });
});
