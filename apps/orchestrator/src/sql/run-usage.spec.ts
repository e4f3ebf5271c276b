import { usageSnapshot, workingSeconds } from './run-usage.sql';

describe('usageSnapshot', () => {
  const at = new Date('2026-01-01T00:00:00Z');

  it('counts the calls of providers with no recorded cost as unpriced', () => {
    const s = usageSnapshot(
      [
        { provider: 'replay', calls: 3, tokens: 30, cost: null },
        { provider: 'anthropic', calls: '2', tokens: '20', cost: '0.5' },
      ],
      [],
      at,
      at,
    );
    expect(s.unpricedCalls).toBe(3);
    expect(s.used).toEqual({ calls: 5, tokens: 50, costUsd: 0.5 });
  });

  it('leaves unpricedCalls out when every provider has a cost', () => {
    const s = usageSnapshot([{ provider: 'anthropic', calls: 1, tokens: 10, cost: '0.1' }], [{ provider: 'anthropic', calls: 1, tokens: 5, cost: null }], at, at);
    expect(s).not.toHaveProperty('unpricedCalls');
    expect(s.reserved).toEqual({ calls: 1, tokens: 5, costUsd: 0 });
  });

  it('does not count the time the run waited at gates against max_seconds: the closed waits and the open one', () => {
    const started = new Date('2026-12-03T10:00:00Z');
    const now = new Date('2026-12-03T10:10:00Z');
    expect(workingSeconds(started, now)).toBe(600);
    expect(workingSeconds(started, now, { waitedSeconds: 120 })).toBe(480);
    expect(workingSeconds(started, now, { waitedSeconds: 120, gateOpenedAt: new Date('2026-12-03T10:05:00Z') })).toBe(180);
    expect(workingSeconds(null, now, { waitedSeconds: 5 })).toBe(0);
    expect(usageSnapshot([], [], started, now, { waitedSeconds: 60 }).elapsedSeconds).toBe(540);
  });
});
