import { createHash } from 'node:crypto';
import { preregistrationHash } from './experiment-hash';

describe('preregistrationHash', () => {
  const prereg = { title: 'MA crossover', method: { command: 'python3 backtest.py p.csv', metrics: ['sharpe_oos', 'n_trades'], timeout_s: 60 }, domain: 'trading' };

  it('is sha256 hex of the canonical JSON', () => {
    const text = '{"domain":"trading","method":{"command":"python3 backtest.py p.csv","metrics":["sharpe_oos","n_trades"],"timeout_s":60},"title":"MA crossover"}';
    expect(preregistrationHash(prereg)).toBe(createHash('sha256').update(text).digest('hex'));
    expect(preregistrationHash(prereg)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not change with key order', () => {
    const reordered = { domain: 'trading', method: { timeout_s: 60, metrics: ['sharpe_oos', 'n_trades'], command: 'python3 backtest.py p.csv' }, title: 'MA crossover' };
    expect(preregistrationHash(reordered)).toBe(preregistrationHash(prereg));
  });

  it('changes with any value, at any depth, and with array order', () => {
    const base = preregistrationHash(prereg);
    expect(preregistrationHash({ ...prereg, title: 'MA crossover!' })).not.toBe(base);
    expect(preregistrationHash({ ...prereg, method: { ...prereg.method, timeout_s: 61 } })).not.toBe(base);
    expect(preregistrationHash({ ...prereg, method: { ...prereg.method, metrics: ['n_trades', 'sharpe_oos'] } })).not.toBe(base);
  });
});
