import type { EvalCellView, EvalDetail, EvalPairSummary } from './api-types';
import {
  budgetText,
  cellMark,
  cellRuns,
  evalMatrix,
  intervalText,
  kindText,
  maxOfCap,
  pairFinding,
  pairLine,
  passRateText,
  plotAlt,
  pointsIntervalText,
  pointsText,
  progressText,
  pValueText,
  svgDataUrl,
} from './evals';
import { fmtInt } from './format';

const cell = (over: Partial<EvalCellView> = {}): EvalCellView => ({
  task: 't1',
  config: 'team',
  status: 'scored',
  runs: [{ id: 'run_1', status: 'done' }],
  chosen_run: 'run_1',
  passed: true,
  reason: 'hidden tests: 5 passed',
  tokens: 1000,
  cost_usd: 0.01,
  seconds: 30,
  ...over,
});

const pair = (over: Partial<EvalPairSummary> = {}): EvalPairSummary => ({
  a: 'team',
  b: 'solo',
  n: 20,
  a_only: 4,
  b_only: 1,
  diff: 0.15,
  interval: [-0.05, 0.35],
  p_value: 0.375,
  significant: false,
  ...over,
});

describe('eval figures', () => {
  it('reads progress and a pass rate as counts first, the percent after, and no rate from nothing', () => {
    expect(progressText({ done: 37, total: 60 })).toBe('37/60');
    expect(passRateText(15, 20)).toBe('15/20 (75 %)');
    expect(passRateText(2, 3)).toBe('2/3 (67 %)');
    expect(passRateText(0, 0)).toBe('0/0');
  });

  it('reads a pass rate interval in percent, and none as a dash', () => {
    expect(intervalText([0.531, 0.888])).toBe('53–89 %');
    expect(intervalText([0, 1])).toBe('0–100 %');
    expect(intervalText(null)).toBe('—');
  });

  it('reads a difference in signed percentage points with a true minus, and never "-0"', () => {
    expect(pointsText(0.15)).toBe('+15 pts');
    expect(pointsText(-0.05)).toBe('−5 pts');
    expect(pointsText(-0.001)).toBe('0 pts');
    expect(pointsIntervalText([-0.05, 0.35])).toBe('−5 to +35 pts');
    expect(pointsIntervalText([0.1, 0.2])).toBe('+10 to +20 pts');
  });

  it('reads a tiny p as "< 0.001", never 0.000', () => {
    expect(pValueText(0.375)).toBe('0.375');
    expect(pValueText(0.0004)).toBe('< 0.001');
    expect(pValueText(1)).toBe('1.000');
  });

  it("says a pair's finding in words, and which way a significant one goes", () => {
    expect(pairFinding(pair())).toEqual({ significant: false, text: 'no significant difference' });
    expect(pairFinding(pair({ significant: true }))).toEqual({ significant: true, text: 'significant: team passes more' });
    expect(pairFinding(pair({ significant: true, diff: -0.2 }))).toEqual({ significant: true, text: 'significant: solo passes more' });
    expect(pairLine(pair())).toBe('team vs solo on 20 tasks: +15 pts (95 % interval −5 to +35 pts); only team solved 4, only solo solved 1; McNemar p 0.375: no significant difference');
  });

  it("names a configuration's kind in words, a vote with its N", () => {
    expect(kindText('as_configured')).toBe('as configured');
    expect(kindText('one_provider')).toBe('one provider');
    expect(kindText('solo')).toBe('solo');
    expect(kindText('vote', 5)).toBe('vote ×5');
    expect(kindText('vote')).toBe('vote');
  });

  it('shows the most one task used against the equal cap, and the budget per task', () => {
    expect(maxOfCap(12000, 50000, fmtInt)).toBe('12,000 of 50,000');
    expect(maxOfCap(12000, undefined, fmtInt)).toBe('12,000');
    expect(budgetText({ max_tokens: 50000, max_cost_usd: 0.5, max_seconds: 900 })).toBe('50,000 tokens · $0.5000 · 900 s');
    expect(budgetText({ max_tokens: 50000, max_seconds: 600 })).toBe('50,000 tokens · 600 s');
  });

  it("marks a cell with a symbol and the words for it, whatever its state", () => {
    expect(cellMark(cell())).toEqual({ state: 'passed', mark: '✓', label: 'passed' });
    expect(cellMark(cell({ passed: false }))).toEqual({ state: 'failed', mark: '✗', label: 'failed' });
    expect(cellMark(cell({ status: 'running', passed: null }))).toEqual({ state: 'running', mark: '…', label: 'running' });
    expect(cellMark(cell({ status: 'error', passed: null })).label).toBe('error');
    expect(cellMark(cell({ passed: null })).label).toBe('no result');
    expect(cellMark(undefined)).toEqual({ state: 'pending', mark: '·', label: 'not started' });
  });

  it("links a cell to its chosen run, or lists a vote's runs with the chosen one marked", () => {
    expect(cellRuns(cell())).toEqual([{ id: 'run_1', status: 'done', chosen: true }]);
    const vote = cell({ runs: [{ id: 'run_a', status: 'done' }, { id: 'run_b', status: 'done' }, { id: 'run_c', status: 'failed' }], chosen_run: 'run_b' });
    expect(cellRuns(vote).map((r) => [r.id, r.chosen])).toEqual([['run_a', false], ['run_b', true], ['run_c', false]]);
    expect(cellRuns(cell({ status: 'running', chosen_run: null, runs: [{ id: 'run_2', status: 'running' }] }))).toEqual([{ id: 'run_2', status: 'running', chosen: false }]);
    expect(cellRuns(cell({ status: 'running', chosen_run: null, runs: [] }))).toEqual([]);
  });

  it('lays the cells out as tasks by configurations, in the eval\'s orders, with a gap where a cell is not there yet', () => {
    const m = evalMatrix({
      tasks: [{ id: 't1', difficulty: 'easy' }, { id: 't2', difficulty: 'hard' }],
      configs: [{ name: 'team', kind: 'as_configured', source: 'team', samples: 1, models: [] }, { name: 'solo', kind: 'solo', source: 'team', samples: 1, models: [] }],
      cells: [cell({ task: 't2', config: 'solo', passed: false }), cell({ task: 't1', config: 'team' }), cell({ task: 't1', config: 'solo' })],
    });
    expect(m.map((r) => [r.task.id, r.cells.map((c) => (c ? cellMark(c).label : null))])).toEqual([
      ['t1', ['passed', 'passed']],
      ['t2', [null, 'failed']],
    ]);
  });

  it("says in the plot's alt text what each point is", () => {
    const summary = {
      configs: [
        { name: 'team', kind: 'as_configured', n: 20, passed: 15, pass_rate: 0.75, interval: [0.53, 0.89], tokens: 1, cost_usd: 1.2, seconds: 1, max_task_tokens: 1, max_task_cost_usd: 0.1 },
        { name: 'solo', kind: 'solo', n: 0, passed: 0, pass_rate: null, interval: null, tokens: 0, cost_usd: 0, seconds: 0, max_task_tokens: 0, max_task_cost_usd: 0 },
      ],
      pairs: [],
    } as EvalDetail['summary'];
    expect(plotAlt({ suite: 'coding', summary })).toBe(
      'Pass rate against cost for the coding eval, one point per configuration with its 95 % interval: team 75 % (53–89 %) for $1.20; solo nothing scored yet.',
    );
    expect(plotAlt({ suite: 'coding', summary: { configs: [], pairs: [] } })).toMatch(/nothing scored yet\.$/);
  });

  it('makes a base64 data: URL of the SVG text, its UTF-8 bytes kept', () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>75 % ± 12 — team</text></svg>';
    const url = svgDataUrl(svg);
    expect(url.startsWith('data:image/svg+xml;base64,')).toBe(true);
    expect(Buffer.from(url.slice('data:image/svg+xml;base64,'.length), 'base64').toString('utf8')).toBe(svg);
    const big = `<svg>${'é'.repeat(100_000)}</svg>`;
    expect(Buffer.from(svgDataUrl(big).split(',')[1], 'base64').toString('utf8')).toBe(big);
  });
});
