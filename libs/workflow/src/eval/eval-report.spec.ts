import type { EvalCellView, EvalConfigView, EvalDetail } from '@roundtable/contracts';
import { cellMark, escapeXml, evalJson, evalMatrix, evalPlotSvg, evalTable, formatPValue, formatWallTime, groupThousands, pairLine } from './eval-report';
import { summarizeEval } from './eval-summary';

const config = (name: string, kind: EvalConfigView['kind'] = 'as_configured', samples = 1): EvalConfigView => ({ name, kind, source: 'team', samples, models: ['anthropic/claude-sonnet-4-5'] });
const cell = (cfg: string, task: string, passed: boolean | null, patch: Partial<EvalCellView> = {}): EvalCellView => ({
  task,
  config: cfg,
  status: 'scored',
  runs: [{ id: `${cfg}-${task}`, status: 'done' }],
  chosen_run: `${cfg}-${task}`,
  passed,
  reason: passed === null ? null : passed ? 'hidden tests: 5 passed' : 'hidden tests: 2 failed',
  tokens: 1000,
  cost_usd: 0.006,
  seconds: 40,
  ...patch,
});

const TASKS = Array.from({ length: 20 }, (_, i) => ({ id: `task-${String(i).padStart(2, '0')}`, difficulty: (['easy', 'medium', 'hard'] as const)[i % 3] }));

function detail(configs: EvalConfigView[], cells: EvalCellView[], patch: Partial<EvalDetail> = {}): EvalDetail {
  return {
    id: 'ev_123',
    suite: 'coding-basics',
    score: 'hidden_tests',
    status: 'done',
    created_at: '2026-12-05T03:00:00.000Z',
    finished_at: '2026-12-05T03:40:00.000Z',
    submitted_by: 'ada',
    budget: { max_tokens: 100_000, max_cost_usd: 1, max_seconds: 900 },
    configs,
    tasks: TASKS,
    cells,
    summary: summarizeEval(configs, cells),
    progress: { done: cells.filter((c) => c.status === 'scored' || c.status === 'error').length, total: configs.length * TASKS.length },
    ...patch,
  };
}

/** team 15/20, solo 8/20 (a subset of team's), vote matches team but for one task. */
function fullDetail(): EvalDetail {
  const configs = [config('team'), config('team.solo', 'solo'), config('team.vote', 'vote', 3)];
  const cells = [
    ...TASKS.map((t, i) => cell('team', t.id, i < 15, { cost_usd: 0.01 })),
    ...TASKS.map((t, i) => cell('team.solo', t.id, i < 8, { tokens: 400, cost_usd: 0.002, seconds: 12 })),
    ...TASKS.map((t, i) => cell('team.vote', t.id, i < 14)),
  ];
  return detail(configs, cells);
}

/**
 * Well-formed enough for the spec's purpose: every tag closes in order, attributes are quoted,
 * and no raw `<` or `&` sits in text. (No XML parser in the unit tier: DOMParser is the browser's.)
 */
function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const text = xml.slice(last, m.index);
    expect(text).not.toMatch(/<|&(?!(amp|lt|gt|quot|apos);)/);
    last = tag.lastIndex;
    const [, closing, name, , selfClosing] = m;
    if (selfClosing) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(xml.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
}

describe('formatting helpers', () => {
  it('groups thousands, formats wall time and p-values', () => {
    expect(groupThousands(1234567)).toBe('1,234,567');
    expect(groupThousands(999)).toBe('999');
    expect(formatWallTime(42)).toBe('42 s');
    expect(formatWallTime(185)).toBe('3m 05s');
    expect(formatWallTime(3720)).toBe('1h 02m');
    expect(formatPValue(0.015625)).toBe('p=0.016');
    expect(formatPValue(0.000122)).toBe('p<0.001');
    expect(formatPValue(1)).toBe('p=1');
  });

  it('escapes XML', () => {
    expect(escapeXml(`a<b & "c" 'd'>`)).toBe('a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;');
  });
});

describe('evalTable', () => {
  it('names every configuration with its pass rate, interval, spend, and the paired block', () => {
    const lines = evalTable(fullDetail());
    const text = lines.join('\n');
    expect(lines[0]).toBe('eval ev_123 · suite coding-basics (hidden_tests) · done · 60/60 cells');
    expect(lines[1]).toBe('budget per task and configuration: 100,000 tokens, $1.00, 15m 00s');
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))!;
    expect(row('team')).toMatch(/^team\s+as_configured\s+15\/20 75%\s+\[53%, 89%\]\s+20,000\s+\$0\.20\s+13m 20s$/);
    expect(row('team.solo')).toMatch(/solo\s+8\/20 40%\s+\[22%, 61%\]\s+8,000\s+\$0\.04\s+4m 00s$/);
    expect(row('team.vote')).toContain('14/20 70%');
    expect(text).toContain('team vs team.solo: +0.35 [');
    expect(text).toMatch(/team vs team\.solo: \+0\.35 \[0\.\d\d, 0\.\d\d\], 7 vs 0 tasks, McNemar p=0\.016 — significant/);
    expect(text).toContain('team vs team.vote: +0.05');
    expect(text).toMatch(/team vs team\.vote: .*1 vs 0 tasks, McNemar p=1 — no significant difference/);
    expect(text).toMatch(/team\.solo vs team\.vote: -0\.30 .*0 vs 6 tasks, McNemar p=0\.031 — significant/);
  });

  it('shows a configuration with nothing scored, and leaves the paired block out for one configuration', () => {
    const lines = evalTable(detail([config('team')], [cell('team', 'task-00', null, { status: 'running' })], { status: 'running' }));
    expect(lines.find((l) => l.startsWith('team '))).toMatch(/0\/0 —\s+—/);
    expect(lines.join('\n')).not.toContain('paired');
  });

  it('a pair with no task scored by both says so', () => {
    expect(pairLine({ a: 'x', b: 'y', n: 0, a_only: 0, b_only: 0, diff: 0, interval: [-1, 1], p_value: 1, significant: false })).toBe('x vs y: no task scored by both');
  });
});

describe('evalMatrix', () => {
  it('has a header, one row per task with its difficulty, and a legend', () => {
    const d = fullDetail();
    d.cells = d.cells.filter((c) => !(c.config === 'team.vote' && c.task === 'task-19'));
    d.cells.push(cell('team.vote', 'task-19', null, { status: 'error' }));
    d.cells = d.cells.map((c) => (c.config === 'team.solo' && c.task === 'task-18' ? { ...c, status: 'running', passed: null } : c));
    const lines = evalMatrix(d);
    expect(lines[0]).toMatch(/^task\s+difficulty\s+team\s+team\.solo\s+team\.vote$/);
    const rows = lines.slice(1, 1 + TASKS.length);
    expect(rows).toHaveLength(TASKS.length);
    TASKS.forEach((t, i) => expect(rows[i].startsWith(`${t.id}  ${t.difficulty}`)).toBe(true));
    expect(rows[0]).toMatch(/✓\s+✓\s+✓$/);
    expect(rows[10]).toMatch(/✓\s+✗\s+✓$/);
    expect(rows[18]).toMatch(/✗\s+·\s+✗$/);
    expect(rows[19]).toMatch(/✗\s+✗\s+!$/);
    expect(lines[lines.length - 1]).toContain('! error');
  });

  it('marks each status', () => {
    expect(cellMark(undefined)).toBe('·');
    expect(cellMark(cell('a', 't', true))).toBe('✓');
    expect(cellMark(cell('a', 't', false))).toBe('✗');
    expect(cellMark(cell('a', 't', null, { status: 'running' }))).toBe('·');
    expect(cellMark(cell('a', 't', null, { status: 'error' }))).toBe('!');
  });
});

describe('evalJson', () => {
  it('holds the eval with cells in task then configuration order, whatever order they came in', () => {
    const d = fullDetail();
    const shuffled = { ...d, cells: [...d.cells].reverse() };
    const j = evalJson(shuffled);
    expect(Object.keys(j)).toEqual(['id', 'suite', 'score', 'status', 'created_at', 'finished_at', 'budget', 'tasks', 'configs', 'summary', 'cells']);
    expect(j.cells.slice(0, 3).map((c) => `${c.task}/${c.config}`)).toEqual(['task-00/team', 'task-00/team.solo', 'task-00/team.vote']);
    expect(JSON.stringify(j)).toBe(JSON.stringify(evalJson(d)));
    expect(j.summary).toEqual(d.summary);
  });
});

describe('evalPlotSvg', () => {
  it('is a self-contained 640×400 SVG with one point and one label per configuration', () => {
    const svg = evalPlotSvg(fullDetail());
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).not.toMatch(/<script|href=|on\w+=/i);
    expect(svg.match(/<circle /g)).toHaveLength(3);
    for (const name of ['team', 'team.solo', 'team.vote']) expect(svg).toContain(`>${name}</text>`);
    expect(svg).toContain('total cost (USD)');
    expect(svg).toContain('>100%</text>');
    expect(svg).toContain('>$0.20</text>');
    assertWellFormed(svg);
  });

  it('plots tokens when every cost is 0, and says so', () => {
    const d = fullDetail();
    d.cells = d.cells.map((c) => ({ ...c, cost_usd: 0 }));
    d.summary = summarizeEval(d.configs, d.cells);
    const svg = evalPlotSvg(d);
    expect(svg).toContain('total tokens (every cost is $0');
    expect(svg).toContain('>20k</text>');
    assertWellFormed(svg);
  });

  it('escapes every name and names a configuration with nothing scored under the plot', () => {
    const configs = [config('a<b&c'), config('"quoted"')];
    const d = detail(configs, [cell('a<b&c', 'task-00', true)], { suite: 'x&y' });
    const svg = evalPlotSvg(d);
    expect(svg).toContain('>a&lt;b&amp;c</text>');
    expect(svg).not.toContain('a<b');
    expect(svg.match(/<circle /g)).toHaveLength(1);
    expect(svg).toContain('nothing scored yet: &quot;quoted&quot;');
    assertWellFormed(svg);
  });

  it('draws an empty eval without dividing by zero', () => {
    const svg = evalPlotSvg(detail([config('team')], []));
    expect(svg).not.toContain('NaN');
    expect(svg).not.toContain('Infinity');
    assertWellFormed(svg);
  });
});
