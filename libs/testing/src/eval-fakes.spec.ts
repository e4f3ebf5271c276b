import { join } from 'node:path';
import { Critique, Implementation, loadEvalSuite, Proposal, Review, Synthesis, type EvalDifficulty, type LoadedCodingSuite, type LoadedCodingTask } from '@roundtable/contracts';
import { evalFakeScript, evalFakeSolution, uniqueObjectiveMatches } from './eval-fakes';
import { parseFakeScript } from './fake-llm/fake-script';
import { ScriptEngine } from './fake-llm/script-engine';

function task(id: string, difficulty: EvalDifficulty, objective: string): LoadedCodingTask {
  return {
    task: { id, difficulty, objective, requirements: ['r'], test_command: 'python -m pytest -q', hidden_command: 'python -m pytest -q -p no:cacheprovider .eval_hidden' },
    dir: `/suite/${id}`,
    starter: null,
    hidden: [{ path: `test_${id}.py`, content: `# eval-hidden: ${id}\nimport m\n\n\ndef test_hidden_${id}_a():\n    pass\n\n\ndef test_hidden_${id}_b():\n    pass\n` }],
    solutions: { good: { 'm.py': `GOOD = "${id}"\n` }, flawed: { 'm.py': `FLAWED = "${id}"\n` } },
  };
}

const suite: LoadedCodingSuite = {
  dir: '/suite',
  suite: { name: 'mini', description: 'd', score: 'hidden_tests' },
  score: 'hidden_tests',
  tasks: [
    task('easy1', 'easy', 'Implement to_roman(n: int) -> str in roman.py, with pytest tests.'),
    task('medium1', 'medium', 'Implement merge_intervals(xs: list) -> list in intervals.py, with pytest tests.'),
    task('hard1', 'hard', 'Implement evaluate(expression: str) -> float in calc.py, with pytest tests.'),
  ],
};

const SCHEMAS = { engineer: Implementation, proposer: Proposal, reviser: Proposal, critic: Critique, validator: Review, reviewer: Review, synthesizer: Synthesis } as const;

describe('evalFakeScript', () => {
  it.each(['strong', 'weak'] as const)('gives a valid script whose every reply parses with its role schema (%s)', (model) => {
    const script = parseFakeScript(evalFakeScript(suite, model));
    expect(new Set(script.replies.map((r) => r.role))).toEqual(new Set(Object.keys(SCHEMAS)));
    for (const entry of script.replies) {
      const schema = SCHEMAS[entry.role as keyof typeof SCHEMAS];
      const parsed = schema.safeParse(entry.reply);
      expect({ role: entry.role, ok: parsed.success, error: parsed.error?.message }).toEqual({ role: entry.role, ok: true, error: undefined });
      expect(entry.times).toBe(1000);
      if (entry.role === 'engineer') {
        const id = (entry.reply as { notes: string }).notes.split(':')[0];
        expect(entry.forbids).toEqual([`# eval-hidden: ${id}`, `test_hidden_${id}_a`, `test_hidden_${id}_b`]);
      } else {
        expect(entry.forbids).toEqual(['# eval-hidden:']);
      }
    }
  });

  it('answers with the good solution for strong, and for weak only on easy tasks', () => {
    const files = (model: 'strong' | 'weak') =>
      Object.fromEntries(
        evalFakeScript(suite, model)
          .replies.filter((r) => r.role === 'engineer')
          .map((r) => [r.match, (r.reply as { files: { content: string }[] }).files[0].content]),
      );
    const matches = uniqueObjectiveMatches(suite.tasks.map((t) => ({ id: t.task.id, objective: t.task.objective })));
    expect(files('strong')).toEqual({ [matches.get('easy1')!]: 'GOOD = "easy1"\n', [matches.get('medium1')!]: 'GOOD = "medium1"\n', [matches.get('hard1')!]: 'GOOD = "hard1"\n' });
    expect(files('weak')).toEqual({ [matches.get('easy1')!]: 'GOOD = "easy1"\n', [matches.get('medium1')!]: 'FLAWED = "medium1"\n', [matches.get('hard1')!]: 'FLAWED = "hard1"\n' });
    expect(['easy', 'medium', 'hard'].map((d) => evalFakeSolution('weak', d as EvalDifficulty))).toEqual(['good', 'flawed', 'flawed']);
    expect(['easy', 'medium', 'hard'].map((d) => evalFakeSolution('strong', d as EvalDifficulty))).toEqual(['good', 'good', 'good']);
  });

  it("picks a task's engineer entry by its objective, and fails a prompt that shows its hidden tests", () => {
    const engine = new ScriptEngine(parseFakeScript(evalFakeScript(suite, 'weak')));
    const prompt = (objective: string, extra = '') => `role: engineer\nObjective: ${objective}\n${extra}`;
    const hard = engine.next(prompt(suite.tasks[2].task.objective));
    expect(hard.error).toBeNull();
    expect((hard.entry!.reply as { files: { content: string }[] }).files[0].content).toBe('FLAWED = "hard1"\n');
    expect((hard.entry!.reply as { test_command: string }).test_command).toBe('python -m pytest -q');
    expect(engine.next(prompt(suite.tasks[0].task.objective, 'def test_hidden_easy1_b():')).error).toMatch(/forbidden "test_hidden_easy1_b"/);
    expect(engine.next(prompt(suite.tasks[1].task.objective, '# eval-hidden: medium1')).error).toMatch(/forbidden "# eval-hidden: medium1"/);
    expect(engine.next('role: critic\n# eval-hidden: easy1').error).toMatch(/forbidden "# eval-hidden:"/);
    expect(engine.next('role: critic\nanything').error).toBeNull();
  });

  it('finds a unique match for every shipped coding task, and refuses an objective contained in another', () => {
    const coding = loadEvalSuite(join(__dirname, '../../../evals/coding'));
    if (coding.score !== 'hidden_tests') throw new Error('evals/coding is a hidden_tests suite');
    const script = evalFakeScript(coding, 'strong');
    const engineers = script.replies.filter((r) => r.role === 'engineer');
    expect(engineers).toHaveLength(coding.tasks.length);
    for (const t of coding.tasks) {
      const holders = engineers.filter((e) => t.task.objective.includes(e.match!));
      expect(holders).toHaveLength(1);
    }
    expect(() => uniqueObjectiveMatches([{ id: 'a', objective: 'Implement f() in m.py' }, { id: 'b', objective: 'Implement f() in m.py, with tests' }])).toThrow(/eval task a: its objective has no substring that is unique/);
  });

  it('refuses a task without solutions, and one whose hidden files carry no sentinel', () => {
    const bare: LoadedCodingSuite = { ...suite, tasks: [{ ...task('x1', 'easy', 'Implement something else in x.py'), solutions: null }] };
    expect(() => evalFakeScript(bare, 'strong')).toThrow(/eval task x1: no solutions/);
    const unmarked: LoadedCodingSuite = { ...suite, tasks: [{ ...task('x2', 'easy', 'Implement something else in x.py'), hidden: [{ path: 'test_x2.py', content: 'def test_hidden_a():\n    pass\n' }] }] };
    expect(() => evalFakeScript(unmarked, 'strong')).toThrow(/eval task x2: no hidden file starts with "# eval-hidden: x2"/);
  });
});
