import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EvalRequest } from './eval-request.schema';
import { EvalSuiteError, evalRequestTasks, findEvalSuite, listEvalSuites, loadEvalSuite } from './load-eval-suite';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'eval-suite-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, content: string): void {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
}

function codingTask(suite: string, id: string, opts: { taskId?: string; hidden?: boolean; starter?: boolean; solutions?: boolean; difficulty?: string } = {}): void {
  write(
    `${suite}/${id}/task.yaml`,
    [`id: ${opts.taskId ?? id}`, `difficulty: ${opts.difficulty ?? 'easy'}`, `objective: "Implement f() in ${id}.py"`, 'requirements:', '  - "returns 1"', ''].join('\n'),
  );
  if (opts.hidden !== false) write(`${suite}/${id}/hidden/test_${id.replace(/-/g, '_')}.py`, `# eval-hidden: ${id}\ndef test_hidden_one():\n    pass\n`);
  if (opts.starter) write(`${suite}/${id}/starter/base.py`, 'X = 1\n');
  if (opts.solutions !== false) {
    write(`${suite}/${id}/solutions/good/m.py`, 'def f():\n    return 1\n');
    write(`${suite}/${id}/solutions/flawed/m.py`, 'def f():\n    return 2\n');
  }
}

function codingSuite(name = 'coding'): string {
  write(`${name}/suite.yaml`, `name: ${name}\ndescription: small tasks\nscore: hidden_tests\n`);
  return join(root, name);
}

function loadError(dir: string): EvalSuiteError {
  try {
    loadEvalSuite(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(EvalSuiteError);
    return e as EvalSuiteError;
  }
  throw new Error('loadEvalSuite did not throw');
}

describe('loadEvalSuite: a hidden_tests suite', () => {
  it('reads the tasks sorted by id, with their hidden tests, starter and solutions', () => {
    const dir = codingSuite();
    codingTask('coding', 'zeta', { starter: true });
    codingTask('coding', 'alpha', { solutions: false, difficulty: 'hard' });
    const loaded = loadEvalSuite(dir);
    expect(loaded.score).toBe('hidden_tests');
    if (loaded.score !== 'hidden_tests') return;
    expect(loaded.suite.name).toBe('coding');
    expect(loaded.tasks.map((t) => t.task.id)).toEqual(['alpha', 'zeta']);
    const [alpha, zeta] = loaded.tasks;
    expect(alpha.task.test_command).toBe('python -m pytest -q'); // the schema's default
    expect(alpha.task.difficulty).toBe('hard');
    expect(alpha.solutions).toBeNull();
    expect(alpha.starter).toBeNull();
    expect(zeta.starter).toBe(join(dir, 'zeta', 'starter'));
    expect(zeta.hidden).toEqual([{ path: 'test_zeta.py', content: '# eval-hidden: zeta\ndef test_hidden_one():\n    pass\n' }]);
    expect(zeta.solutions).toEqual({ good: { 'm.py': 'def f():\n    return 1\n' }, flawed: { 'm.py': 'def f():\n    return 2\n' } });
  });

  it('leaves out what running the tests in place leaves behind', () => {
    const dir = codingSuite();
    codingTask('coding', 'alpha');
    write('coding/alpha/hidden/__pycache__/test_alpha.cpython-312.pyc', 'x');
    write('coding/alpha/solutions/good/__pycache__/m.cpython-312.pyc', 'x');
    const loaded = loadEvalSuite(dir);
    if (loaded.score !== 'hidden_tests') throw new Error('expected hidden_tests');
    expect(loaded.tasks[0].hidden.map((h) => h.path)).toEqual(['test_alpha.py']);
    expect(Object.keys(loaded.tasks[0].solutions!.good)).toEqual(['m.py']);
  });

  it('names the task whose hidden/ is missing or empty', () => {
    const dir = codingSuite();
    codingTask('coding', 'no-hidden', { hidden: false });
    codingTask('coding', 'empty-hidden', { hidden: false });
    mkdirSync(join(dir, 'empty-hidden', 'hidden'));
    const err = loadError(dir);
    expect(err.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'no-hidden/hidden/', message: expect.stringContaining('task no-hidden needs its hidden tests') }),
        expect.objectContaining({ file: 'empty-hidden/hidden/', message: expect.stringContaining('task empty-hidden needs at least one hidden test file') }),
      ]),
    );
  });

  it('refuses a task whose id is not its directory name', () => {
    const dir = codingSuite();
    codingTask('coding', 'roman', { taskId: 'roman-numerals' });
    const err = loadError(dir);
    expect(err.issues).toEqual([expect.objectContaining({ file: 'roman/task.yaml', path: 'id', message: expect.stringContaining('directory is roman') })]);
    expect(err.message).toContain('roman/task.yaml id: is "roman-numerals"');
  });

  it('names the file and field of a schema error, and every problem at once', () => {
    const dir = codingSuite();
    write('coding/a/task.yaml', 'id: a\ndifficulty: trivial\nobjective: x\nrequirements: []\n');
    write('coding/a/hidden/test_a.py', 'pass\n');
    write('coding/b/task.yaml', 'id: b\ndifficulty: easy\nobjective: x\nrequirements: [r]\ncolour: red\n');
    write('coding/b/hidden/test_b.py', 'pass\n');
    const err = loadError(dir);
    expect(err.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'a/task.yaml', path: 'difficulty', message: expect.stringContaining('easy, medium, hard') }),
        expect.objectContaining({ file: 'a/task.yaml', path: 'requirements' }),
        expect.objectContaining({ file: 'b/task.yaml', path: '', message: expect.stringContaining('"colour"') }),
      ]),
    );
  });

  it('reports malformed YAML with its line, a directory without task.yaml, and solutions/ without flawed/', () => {
    const dir = codingSuite();
    write('coding/a/task.yaml', 'id: a\nrequirements: [unclosed\n');
    write('coding/a/hidden/test_a.py', 'pass\n');
    mkdirSync(join(dir, 'stray'));
    codingTask('coding', 'c', { solutions: false });
    write('coding/c/solutions/good/m.py', 'x = 1\n');
    const err = loadError(dir);
    expect(err.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'a/task.yaml', message: expect.stringMatching(/line \d+.*malformed YAML/) }),
        expect.objectContaining({ file: 'stray/task.yaml', message: expect.stringContaining('is missing') }),
        expect.objectContaining({ file: 'c/solutions/flawed/', message: expect.stringContaining('good/ and flawed/') }),
      ]),
    );
  });

  it('refuses a hidden file path the request would refuse', () => {
    const dir = codingSuite();
    codingTask('coding', 'a');
    write('coding/a/hidden/has space.py', 'pass\n');
    const err = loadError(dir);
    expect(err.issues).toEqual([expect.objectContaining({ file: 'a/hidden/', path: 'hidden.0.path' })]);
  });

  it('refuses a missing suite.yaml, a suite named unlike its directory, and a suite with no task', () => {
    mkdirSync(join(root, 'empty'));
    expect(loadError(join(root, 'empty')).issues).toEqual([expect.objectContaining({ file: 'suite.yaml', message: expect.stringContaining('is missing') })]);
    write('other/suite.yaml', 'name: coding\ndescription: d\nscore: hidden_tests\n');
    expect(loadError(join(root, 'other')).issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'suite.yaml', path: 'name', message: expect.stringContaining('directory is other') }),
        expect.objectContaining({ message: expect.stringContaining('holds no task') }),
      ]),
    );
    write('bad/suite.yaml', 'name: bad\ndescription: d\nscore: vibes\n');
    expect(loadError(join(root, 'bad')).issues).toEqual([expect.objectContaining({ file: 'suite.yaml', path: 'score', message: expect.stringContaining('hidden_tests, verdict') })]);
  });
});

describe('loadEvalSuite: a verdict suite', () => {
  const idea = (id: string, reference = 'GO') =>
    [`id: ${id}`, 'difficulty: medium', 'idea:', `  title: ${id}`, '  description: d', '  target_user: u', '  evidence: ["e"]', `reference: ${reference}`, 'why: because', ''].join('\n');

  it('reads the idea files sorted by id', () => {
    write('ideas/suite.yaml', 'name: ideas\ndescription: d\nscore: verdict\n');
    write('ideas/b-idea.yaml', idea('b-idea', 'NO-GO'));
    write('ideas/a-idea.yaml', idea('a-idea'));
    write('ideas/README.md', 'not a task\n');
    const loaded = loadEvalSuite(join(root, 'ideas'));
    expect(loaded.score).toBe('verdict');
    if (loaded.score !== 'verdict') return;
    expect(loaded.tasks.map((t) => [t.id, t.reference])).toEqual([
      ['a-idea', 'GO'],
      ['b-idea', 'NO-GO'],
    ]);
    expect(evalRequestTasks(loaded)).toEqual([
      { id: 'a-idea', difficulty: 'medium', idea: { title: 'a-idea', description: 'd', target_user: 'u', evidence: ['e'] }, reference: 'GO' },
      { id: 'b-idea', difficulty: 'medium', idea: { title: 'b-idea', description: 'd', target_user: 'u', evidence: ['e'] }, reference: 'NO-GO' },
    ]);
  });

  it('refuses an idea whose id is not its file name, and a wrong reference', () => {
    write('ideas/suite.yaml', 'name: ideas\ndescription: d\nscore: verdict\n');
    write('ideas/one.yaml', idea('two'));
    write('ideas/three.yaml', idea('three', 'MAYBE'));
    const err = loadError(join(root, 'ideas'));
    expect(err.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'one.yaml', path: 'id', message: expect.stringContaining('file is one.yaml') }),
        expect.objectContaining({ file: 'three.yaml', path: 'reference', message: expect.stringContaining('GO, ITERATE, NO-GO') }),
      ]),
    );
  });
});

describe('evalRequestTasks (hidden_tests)', () => {
  it('gives what POST /v1/evals carries: hidden paths relative to hidden/, the starter absolute, no solutions', () => {
    const dir = codingSuite();
    codingTask('coding', 'alpha', { starter: true });
    write('coding/alpha/hidden/data/input.txt', '1 2 3\n');
    const loaded = loadEvalSuite(dir);
    if (loaded.score !== 'hidden_tests') throw new Error('expected hidden_tests');
    const tasks = evalRequestTasks(loaded);
    expect(tasks).toEqual([
      {
        id: 'alpha',
        difficulty: 'easy',
        objective: 'Implement f() in alpha.py',
        requirements: ['returns 1'],
        test_command: 'python -m pytest -q',
        hidden_command: 'python -m pytest -q -p no:cacheprovider .eval_hidden',
        starter: join(dir, 'alpha', 'starter'),
        hidden: [
          { path: 'data/input.txt', content: '1 2 3\n' },
          { path: 'test_alpha.py', content: '# eval-hidden: alpha\ndef test_hidden_one():\n    pass\n' },
        ],
      },
    ]);
    const request = EvalRequest.safeParse({ suite: 'coding', score: 'hidden_tests', configs: [{ name: 'team', project: {} }], budget: { max_tokens: 1000 }, tasks });
    expect(request.success).toBe(true);
  });
});

describe('findEvalSuite', () => {
  it('resolves a bare name under the evals directory, and a path as a path', () => {
    codingSuite('coding');
    codingSuite('other');
    expect(findEvalSuite('coding', root)).toBe(join(root, 'coding'));
    expect(findEvalSuite(join(root, 'other'), '/nonexistent')).toBe(join(root, 'other'));
    expect(listEvalSuites(root)).toEqual(['coding', 'other']);
  });

  it('lists the suites found when a name is unknown', () => {
    codingSuite('coding');
    write('ideas/suite.yaml', 'name: ideas\ndescription: d\nscore: verdict\n');
    mkdirSync(join(root, 'not-a-suite'));
    expect(() => findEvalSuite('codnig', root)).toThrow(/no eval suite "codnig".*suites found: coding, ideas/);
    expect(() => findEvalSuite('./nowhere', root)).toThrow(/\.\/nowhere holds no suite\.yaml; suites found: coding, ideas/);
    expect(() => findEvalSuite('coding', join(root, 'missing'))).toThrow(/no suite found in/);
  });
});
