import { answerKey, normaliseAnswerText, pluralityAnswer, type VoteSample } from './eval-vote';

const sample = (index: number, files: Record<string, string>): VoteSample => ({ runId: `run-${index}`, index, files });

describe('normaliseAnswerText', () => {
  it('drops what a model varies without meaning', () => {
    expect(normaliseAnswerText('def f():  \r\n    return 1\t\r\n\r\n\n')).toBe('def f():\n    return 1');
    expect(normaliseAnswerText('')).toBe('');
    expect(normaliseAnswerText('\n\n')).toBe('');
  });

  it('keeps leading indentation and inner blank lines', () => {
    expect(normaliseAnswerText('  a\n\n  b\n')).toBe('  a\n\n  b');
  });
});

describe('answerKey', () => {
  it('is the same whatever the order of paths and the formatting', () => {
    expect(answerKey({ 'b.py': 'x = 1\r\n', 'a.py': 'y = 2  ' })).toBe(answerKey({ 'a.py': 'y = 2', 'b.py': 'x = 1\n\n' }));
  });

  it('differs by path and by content', () => {
    expect(answerKey({ 'a.py': 'x' })).not.toBe(answerKey({ 'b.py': 'x' }));
    expect(answerKey({ 'a.py': 'x' })).not.toBe(answerKey({ 'a.py': 'y' }));
  });
});

describe('pluralityAnswer', () => {
  it('the largest group wins, scored as its first sample', () => {
    const r = pluralityAnswer([
      sample(0, { 'a.py': 'one' }),
      sample(1, { 'a.py': 'two' }),
      sample(2, { 'a.py': 'two\r\n' }),
      sample(3, { 'a.py': 'two  \n\n' }),
      sample(4, { 'a.py': 'one' }),
    ]);
    expect(r).toEqual({ runId: 'run-1', votes: 3, of: 5 });
  });

  it('a tie goes to the group with the lowest sample index, whatever order the samples come in', () => {
    const samples = [sample(3, { 'a.py': 'late' }), sample(1, { 'a.py': 'early' }), sample(0, { 'a.py': 'late' }), sample(2, { 'a.py': 'early' })];
    expect(pluralityAnswer(samples)).toEqual({ runId: 'run-0', votes: 2, of: 4 });
  });

  it('empty answers are one group, which wins only as the strict plurality', () => {
    expect(pluralityAnswer([sample(0, {}), sample(1, {}), sample(2, { 'a.py': 'x' })])).toEqual({ runId: 'run-0', votes: 2, of: 3 });
    // tied with an answer: the answer
    expect(pluralityAnswer([sample(0, {}), sample(1, { 'a.py': 'x' })])).toEqual({ runId: 'run-1', votes: 1, of: 2 });
    expect(pluralityAnswer([sample(0, {})])).toEqual({ runId: 'run-0', votes: 1, of: 1 });
  });

  it('a file emptied by normalisation is still an answer, not "no files"', () => {
    expect(pluralityAnswer([sample(0, {}), sample(1, { 'a.py': '\n' })])).toEqual({ runId: 'run-1', votes: 1, of: 2 });
  });

  it('no samples: nothing to score', () => {
    expect(pluralityAnswer([])).toBeNull();
  });
});
