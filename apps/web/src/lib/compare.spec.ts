import { alignRoles, alignRows, callsByRole, comparePair, usageRows, verdictRows, type RunUsage } from './compare';

const usage = (over: Partial<RunUsage> = {}): RunUsage => ({
  calls: 10,
  failed_calls: 0,
  input_tokens: 1000,
  output_tokens: 500,
  tokens: 1500,
  cost_usd: 0.25,
  unpriced_calls: 0,
  seconds: 42,
  ...over,
});

const call = (role: string, input: number | null, output: number | null, cost: number | null, status: 'completed' | 'failed' = 'completed') => ({
  role,
  status,
  input_tokens: input,
  output_tokens: output,
  cost_usd: cost,
});

describe('usageRows', () => {
  it('shows each figure of both runs and b − a, signed', () => {
    const rows = usageRows(usage(), usage({ calls: 12, failed_calls: 1, input_tokens: 900, tokens: 1400, cost_usd: 0.5, seconds: 102 }));
    expect(rows.map((r) => r.label)).toEqual(['Calls', 'Failed calls', 'Input tokens', 'Output tokens', 'Tokens', 'Cost (USD)', 'Seconds']);
    expect(rows[0]).toEqual({ label: 'Calls', a: '10', b: '12', delta: '+2' });
    expect(rows[2]).toEqual({ label: 'Input tokens', a: '1,000', b: '900', delta: '−100' });
    expect(rows[3]).toEqual({ label: 'Output tokens', a: '500', b: '500', delta: '±0' });
    expect(rows[5]).toEqual({ label: 'Cost (USD)', a: '$0.2500', b: '$0.5000', delta: '+$0.2500' });
    expect(rows[6]).toEqual({ label: 'Seconds', a: '42.0 s', b: '1 min 42 s', delta: '+1 min 0 s' });
  });

  it('says ±0 for a difference too small to show (a float sum a millionth of a dollar apart)', () => {
    const rows = usageRows(usage({ cost_usd: 0.0912 }), usage({ cost_usd: 0.091199 }));
    expect(rows[5]).toEqual({ label: 'Cost (USD)', a: '$0.0912', b: '$0.0912', delta: '±0' });
    expect(usageRows(usage({ cost_usd: 0.09 }), usage({ cost_usd: 0.0912 }))[5].delta).toBe('+$0.0012');
  });

  it('says unknown, never $0, for an unpriced run, and gives no delta then', () => {
    const rows = usageRows(usage({ cost_usd: null, seconds: null }), usage());
    expect(rows[5]).toEqual({ label: 'Cost (USD)', a: '—', b: '$0.2500', delta: null });
    expect(rows[6]).toEqual({ label: 'Seconds', a: '—', b: '42.0 s', delta: null });
  });
});

describe('callsByRole', () => {
  it('sums calls, failures, tokens and cost per role, in the order each role was first called', () => {
    const roles = callsByRole([
      call('proposer', 100, 50, 0.01),
      call('critic', 200, 20, 0.02),
      call('proposer', 120, 60, 0.03),
      call('critic', null, null, null, 'failed'),
      call('synthesizer', 300, 30, null),
    ]);
    expect(roles).toEqual([
      { role: 'proposer', calls: 2, failed: 0, tokens: 330, cost_usd: 0.04 },
      { role: 'critic', calls: 2, failed: 1, tokens: 220, cost_usd: 0.02 },
      { role: 'synthesizer', calls: 1, failed: 0, tokens: 330, cost_usd: null },
    ]);
  });

  it('is empty for a run with no calls', () => {
    expect(callsByRole([])).toEqual([]);
  });
});

describe('alignRoles and alignRows', () => {
  it("puts a's roles first, then those only b called, with null where a run never called it", () => {
    const a = callsByRole([call('proposer', 1, 1, 0), call('critic', 1, 1, 0)]);
    const b = callsByRole([call('vc', 2, 2, 0), call('proposer', 3, 3, 0)]);
    const pairs = alignRoles(a, b);
    expect(pairs.map((p) => [p.role, p.a?.tokens ?? null, p.b?.tokens ?? null])).toEqual([
      ['proposer', 2, 6],
      ['critic', 2, null],
      ['vc', null, 4],
    ]);
  });

  it('lines rows up by label, with — where a run has no such row', () => {
    expect(alignRows([{ label: 'Verdict', value: 'ACCEPT' }, { label: 'Rounds', value: '2' }], [{ label: 'Score: vc', value: '7' }, { label: 'Verdict', value: 'GO' }])).toEqual([
      { label: 'Verdict', a: 'ACCEPT', b: 'GO' },
      { label: 'Rounds', a: '2', b: '—' },
      { label: 'Score: vc', a: '—', b: '7' },
    ]);
  });
});

describe('verdictRows', () => {
  it("gives the run's status, verdict and confidence to two places, — when there is none yet", () => {
    expect(verdictRows({ status: 'done', verdict: 'ACCEPT', confidence: 0.8 })).toEqual([
      { label: 'Status', value: 'done' },
      { label: 'Verdict', value: 'ACCEPT' },
      { label: 'Confidence', value: '0.80' },
    ]);
    expect(verdictRows({ status: 'running', verdict: null, confidence: null }).map((r) => r.value)).toEqual(['running', '—', '—']);
  });
});

describe('comparePair', () => {
  it('makes the older of two picked runs A, whichever was ticked first', () => {
    const picked = new Map([
      ['run_new', '2026-12-04T10:00:05.000Z'],
      ['run_old', '2026-12-04T09:59:59.000Z'],
    ]);
    expect(comparePair(picked)).toEqual({ a: 'run_old', b: 'run_new' });
  });

  it('orders two runs of the same time (or none) by id', () => {
    expect(comparePair(new Map([['run_b', null], ['run_a', null]]))).toEqual({ a: 'run_a', b: 'run_b' });
  });

  it('is null unless exactly two are picked', () => {
    expect(comparePair(new Map())).toBeNull();
    expect(comparePair(new Map([['run_a', null]]))).toBeNull();
    expect(comparePair(new Map([['run_a', null], ['run_b', null], ['run_c', null]]))).toBeNull();
  });
});
