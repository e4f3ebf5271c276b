import type { PriceLookup } from '../engine/call-types';
import { priced } from '../engine/workflow-driver.fixture';
import { BuildDriver, proposalBody, testConfig } from './build-scenario.fixture';

/** Issue 13 item 3 in the build: a call reserves its worst case, and a priced one its worst-case USD. */

const PRICES: PriceLookup = (model) => (model === 'claude-sonnet-4-5' ? { inputPerMtok: 3, outputPerMtok: 15 } : null);

describe('build workflow: worst-case reservations', () => {
  it('the proposer reserves prompt estimate + max_tokens, priced; the unpriced critic reserves no USD', () => {
    const d = priced(new BuildDriver(testConfig()), PRICES).begin();
    const p = d.pendingCall!;
    expect(p).toMatchObject({ provider: 'anthropic', reservedTokens: p.estimatedTokens + 2000 });
    expect(p.reservedCostUsd).toBeCloseTo((p.estimatedTokens * 3 + 2000 * 15) / 1_000_000, 12);
    d.reply(proposalBody('P1'));
    expect(d.pendingCall).toMatchObject({ role: 'critic', provider: 'xai', reservedCostUsd: 0 });
  });

  it('a max_cost_usd the proposer’s worst case would pass halts before it is asked', () => {
    const d = priced(new BuildDriver(testConfig({ budget: { max_cost_usd: 0.01 } })), PRICES).begin();
    expect(d.calls.filter((c) => c.role === 'proposer')).toEqual([]);
    expect(d.state.haltReason).toMatch(/^max_cost_usd would be exceeded: \$0\.00 spent or reserved \+ \$0\.03 at the table price for the next call > \$0\.01$/);
    // The same cap without prices: nothing is known to cost anything, so the proposer is asked.
    expect(new BuildDriver(testConfig({ budget: { max_cost_usd: 0.01 } })).begin().pendingCall?.role).toBe('proposer');
  });
});
