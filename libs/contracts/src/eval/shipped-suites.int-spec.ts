import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { HIDDEN_TESTS_DIR } from './eval-suite.schema';
import { loadEvalSuite, readSuiteFiles, type LoadedCodingTask } from './load-eval-suite';

/**
 * The suites shipped in evals/ are what they claim: every coding task's good solution passes its
 * own tests and the hidden ones, its flawed solution passes its own tests and fails a hidden one,
 * and nothing of the hidden tests shows where an agent could read it. Each run is a plain
 * `python3 -m pytest` in a temp directory laid out as the scorer lays out its copy (starter/, the
 * solution's files over it, hidden/ as .eval_hidden/).
 */

const EVALS = join(__dirname, '../../../../evals');
const coding = loadEvalSuite(join(EVALS, 'coding'));
const ideas = loadEvalSuite(join(EVALS, 'panel-ideas'));
if (coding.score !== 'hidden_tests' || ideas.score !== 'verdict') throw new Error('evals/coding is scored by hidden_tests and evals/panel-ideas by verdict');
const codingTasks = coding.tasks;

interface PytestRun {
  code: number;
  output: string;
}

/** A task's command (`python -m pytest …`) as argv for python3, the interpreter the CI image has. */
function python3Args(command: string): string[] {
  const [exe, ...args] = command.split(/\s+/);
  if (exe !== 'python') throw new Error(`expected a command starting with "python": ${command}`);
  return args;
}

function run(cwd: string, command: string): Promise<PytestRun> {
  return new Promise((resolve) => {
    // No plugin autoload: the tasks use none, and loading whatever the machine has installed
    // (pytest-benchmark …) is most of a run's start-up time.
    const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' };
    execFile('python3', python3Args(command), { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, output: `${stdout}${stderr}`.trim().split('\n').slice(-15).join('\n') });
    });
  });
}

function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** The workspace a run of this task would end with had the engineer written `solution`, plus the scorer's hidden copy. */
async function runSolution(task: LoadedCodingTask, kind: 'good' | 'flawed'): Promise<{ visible: PytestRun; hidden: PytestRun }> {
  const dir = mkdtempSync(join(tmpdir(), `eval-${task.task.id}-${kind}-`));
  try {
    if (task.starter) cpSync(task.starter, dir, { recursive: true });
    writeTree(dir, task.solutions![kind]);
    const visible = await run(dir, task.task.test_command);
    writeTree(join(dir, HIDDEN_TESTS_DIR), Object.fromEntries(task.hidden.map((h) => [h.path, h.content])));
    const hidden = await run(dir, task.task.hidden_command);
    return { visible, hidden };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `work` over `items`, `width` at a time (pytest starts are CPU-bound; the CI machine has 2 cores). */
async function pool<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]);
      }
    }),
  );
  return out;
}

type Outcome = { good: { visible: PytestRun; hidden: PytestRun }; flawed: { visible: PytestRun; hidden: PytestRun } };
const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  const jobs = codingTasks.flatMap((t) => (['good', 'flawed'] as const).map((kind) => ({ t, kind })));
  const results = await pool(jobs, 4, ({ t, kind }) => runSolution(t, kind));
  jobs.forEach(({ t, kind }, i) => outcomes.set(t.task.id, { ...outcomes.get(t.task.id)!, [kind]: results[i] }));
}, 180_000);

describe('evals/coding', () => {
  it('holds at least 20 tasks, with solutions, spanning the three difficulties', () => {
    expect(codingTasks.length).toBeGreaterThanOrEqual(20);
    expect(codingTasks.filter((t) => !t.solutions).map((t) => t.task.id)).toEqual([]);
    expect(new Set(codingTasks.map((t) => t.task.difficulty))).toEqual(new Set(['easy', 'medium', 'hard']));
  });

  it.each(codingTasks.map((t) => [t.task.id, t] as const))('%s: good passes its own and the hidden tests; flawed passes its own and fails a hidden one', (_id, t) => {
    const o = outcomes.get(t.task.id)!;
    const show = (r: PytestRun) => ({ code: r.code, output: r.output });
    expect(show(o.good.visible)).toEqual({ code: 0, output: expect.stringMatching(/passed/) });
    expect(show(o.good.hidden)).toEqual({ code: 0, output: expect.stringMatching(/passed/) });
    expect(show(o.flawed.visible)).toEqual({ code: 0, output: expect.stringMatching(/passed/) });
    // 1 is "tests ran and some failed"; an import error or no tests collected would be 2 or 5.
    expect(show(o.flawed.hidden)).toEqual({ code: 1, output: expect.stringMatching(/failed/) });
  });

  it.each(codingTasks.map((t) => [t.task.id, t] as const))('%s: the hidden tests are marked, and nothing of them shows outside hidden/', (_id, t) => {
    const sentinel = `# eval-hidden: ${t.task.id}`;
    expect(t.hidden.map((h) => h.path)).toContain(`test_${t.task.id.replace(/-/g, '_')}.py`);
    const names: string[] = [];
    for (const h of t.hidden.filter((f) => f.path.endsWith('.py'))) {
      expect(h.content.split('\n', 1)[0]).toBe(sentinel);
      const tests = [...h.content.matchAll(/^def (test\w*)/gm)].map((m) => m[1]);
      expect(tests.filter((n) => !n.startsWith('test_hidden_'))).toEqual([]);
      names.push(...tests);
    }
    expect(names.length).toBeGreaterThanOrEqual(4);
    expect(names.length).toBeLessThanOrEqual(10);
    const seen: Record<string, string> = {
      objective: t.task.objective,
      requirements: t.task.requirements.join('\n'),
      ...Object.fromEntries(Object.entries(t.starter ? readSuiteFiles(t.starter) : {}).map(([p, c]) => [`starter/${p}`, c])),
      ...Object.fromEntries(Object.entries(t.solutions!.good).map(([p, c]) => [`solutions/good/${p}`, c])),
      ...Object.fromEntries(Object.entries(t.solutions!.flawed).map(([p, c]) => [`solutions/flawed/${p}`, c])),
    };
    const leaks = Object.entries(seen).flatMap(([where, text]) =>
      ['# eval-hidden', 'test_hidden_', ...names].filter((marker) => text.includes(marker)).map((marker) => `${where}: ${marker}`),
    );
    expect(leaks).toEqual([]);
    // The engineer writes visible tests; a solution without one would make "its own tests pass" vacuous.
    expect(Object.keys(t.solutions!.good).filter((p) => /(^|\/)test_\w+\.py$/.test(p)).length).toBeGreaterThan(0);
    expect(Object.keys(t.solutions!.flawed).filter((p) => /(^|\/)test_\w+\.py$/.test(p)).length).toBeGreaterThan(0);
  });

  it('ships no stray directory a loader would skip silently', () => {
    const dirs = readdirSync(join(EVALS, 'coding'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(dirs.sort()).toEqual(codingTasks.map((t) => t.task.id));
  });
});

describe('evals/panel-ideas', () => {
  it('holds at least 12 ideas mixing every reference verdict and difficulty', () => {
    expect(ideas.tasks.length).toBeGreaterThanOrEqual(12);
    const count = (key: 'reference' | 'difficulty') => ideas.tasks.reduce<Record<string, number>>((acc, t) => ({ ...acc, [t[key]]: (acc[t[key]] ?? 0) + 1 }), {});
    expect(Object.keys(count('reference')).sort()).toEqual(['GO', 'ITERATE', 'NO-GO']);
    expect(Object.values(count('reference')).every((n) => n >= 3)).toBe(true);
    expect(Object.keys(count('difficulty')).sort()).toEqual(['easy', 'hard', 'medium']);
  });
});
