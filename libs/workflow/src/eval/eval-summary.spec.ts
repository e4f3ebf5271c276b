import type { EvalCellView, EvalConfigView } from '@roundtable/contracts';
import { summarizeEval } from './eval-summary';

const config = (name: string, kind: EvalConfigView['kind'] = 'as_configured'): EvalConfigView => ({ name, kind, source: name, samples: 1, models: [] });
const cell = (config: string, task: string, passed: boolean | null, patch: Partial<EvalCellView> = {}): EvalCellView => ({
  task,
  config,
  status: 'scored',
  runs: [{ id: `${config}-${task}`, status: 'done' }],
  chosen_run: `${config}-${task}`,
  passed,
  reason: null,
  tokens: 100,
  cost_usd: 0.01,
  seconds: 10,
  ...patch,
});
const tasks = (n: number) => Array.from({ length: n }, (_, i) => `t${String(i).padStart(2, '0')}`);

describe('summarizeEval', () => {
  it('counts scored cells only, and spend over every cell', () => {
    const s = summarizeEval(
      [config('team')],
      [
        cell('team', 'a', true, { tokens: 500, cost_usd: 0.05, seconds: 30 }),
        cell('team', 'b', false),
        cell('team', 'c', null, { status: 'error', reason: 'sandbox unavailable', tokens: 50, cost_usd: 0.2 }),
        cell('team', 'd', null, { status: 'running', tokens: 7, cost_usd: 0, seconds: 1 }),
        cell('team', 'e', null, { status: 'scored' }),
      ],
    );
    const t = s.configs[0];
    expect(t).toMatchObject({ name: 'team', kind: 'as_configured', n: 2, passed: 1, pass_rate: 0.5 });
    expect(t.interval![0]).toBeCloseTo(0.0945, 3);
    expect(t.tokens).toBe(500 + 100 + 50 + 7 + 100);
    expect(t.cost_usd).toBeCloseTo(0.05 + 0.01 + 0.2 + 0 + 0.01, 12);
    expect(t.seconds).toBe(30 + 10 + 10 + 1 + 10);
    expect(t.max_task_tokens).toBe(500);
    expect(t.max_task_cost_usd).toBe(0.2);
    expect(s.pairs).toEqual([]);
  });

  it('a configuration with nothing scored has no rate and no interval', () => {
    const s = summarizeEval([config('x')], []);
    expect(s.configs[0]).toMatchObject({ n: 0, passed: 0, pass_rate: null, interval: null, tokens: 0, max_task_tokens: 0 });
  });

  it('pairs every two configurations in config order, on the tasks both scored', () => {
    const ts = tasks(20);
    const cells = [
      // team passes 15; solo passes the first 8 only; one-provider matches team except t19
      ...ts.map((t, i) => cell('team', t, i < 15)),
      ...ts.map((t, i) => cell('solo', t, i < 8)),
      ...ts.map((t, i) => cell('one', t, i < 15 && i !== 14)),
      cell('team', 'extra', true), // scored by team alone: not paired
      cell('ignored', 't00', false), // not a configuration of the eval
    ];
    const s = summarizeEval([config('team'), config('solo', 'solo'), config('one', 'one_provider')], cells);
    expect(s.configs.map((c) => c.name)).toEqual(['team', 'solo', 'one']);
    expect(s.pairs.map((p) => `${p.a}/${p.b}`)).toEqual(['team/solo', 'team/one', 'solo/one']);

    const [teamSolo, teamOne, soloOne] = s.pairs;
    expect(teamSolo).toMatchObject({ n: 20, a_only: 7, b_only: 0, significant: true });
    expect(teamSolo.diff).toBeCloseTo(0.35, 12);
    expect(teamSolo.p_value).toBeCloseTo(0.015625, 9);
    expect(teamSolo.interval[0]).toBeGreaterThan(0);

    expect(teamOne).toMatchObject({ n: 20, a_only: 1, b_only: 0, p_value: 1, significant: false });
    expect(soloOne).toMatchObject({ a_only: 0, b_only: 6, significant: true });
    expect(soloOne.diff).toBeCloseTo(-0.3, 12);
    expect(soloOne.p_value).toBeCloseTo(2 / 64, 9);
    // p = 0.031 < 0.05 and the interval lies below 0: significant
    expect(soloOne.interval[1]).toBeLessThan(0);
  });

  it('a pair is not significant on p alone when the bootstrap interval touches 0', () => {
    // 5 vs 0 among 6 tasks: p = 0.0625, not below 0.05
    const ts = tasks(6);
    const s = summarizeEval([config('a'), config('b')], [...ts.map((t, i) => cell('a', t, i < 5)), ...ts.map((t) => cell('b', t, false))]);
    expect(s.pairs[0]).toMatchObject({ a_only: 5, b_only: 0, significant: false });
    expect(s.pairs[0].p_value).toBeCloseTo(0.0625, 9);
  });

  it('is the same whatever order the cells come in', () => {
    const ts = tasks(12);
    const cells = [...ts.map((t, i) => cell('a', t, i % 3 !== 0)), ...ts.map((t, i) => cell('b', t, i % 2 === 0))];
    const once = summarizeEval([config('a'), config('b')], cells);
    const again = summarizeEval([config('a'), config('b')], [...cells].reverse());
    expect(again).toEqual(once);
  });

  it('pairs no task that either one lost to an error', () => {
    const s = summarizeEval(
      [config('a'), config('b')],
      [cell('a', 'x', true), cell('b', 'x', null, { status: 'error' }), cell('a', 'y', true), cell('b', 'y', true)],
    );
    expect(s.pairs[0]).toMatchObject({ n: 1, a_only: 0, b_only: 0, diff: 0, p_value: 1, significant: false });
  });
});
