import { answerQuestion, answersText, questionId, questionIndex, unanswered, type AnswerableQuestion } from './answers';
import { StepAccumulator } from './step-accumulator';

/** The engine's open questions and a person's answers (issue 21), for any workflow. */

class TestStep extends StepAccumulator<{ runId: string; stage: string; counters: Record<string, number>; config: unknown; openQuestions?: AnswerableQuestion[] }, string, unknown, unknown> {
  constructor(openQuestions?: AnswerableQuestion[]) {
    super({ runId: 'run1', stage: 'REVISE', counters: {}, config: {}, ...(openQuestions ? { openQuestions } : {}) });
  }

  protected outcome() {
    return { verdict: null, confidence: null };
  }
}

const q = (question: string, answer?: AnswerableQuestion['answer']): AnswerableQuestion => ({ role: 'critic', question, ...(answer ? { answer } : {}) });

describe('question ids', () => {
  const three = [q('a'), q('b'), q('c')];

  it('are Q<n>, counted from 1 in the order raised', () => {
    expect([0, 1, 9].map(questionId)).toEqual(['Q1', 'Q2', 'Q10']);
    expect(['Q1', 'Q2', 'Q3'].map((id) => questionIndex(id, three))).toEqual([0, 1, 2]);
  });

  it('answer -1 for an id past the end, a malformed one, or one with anything around it', () => {
    for (const id of ['Q4', 'Q0', 'Q01', 'q1', 'Q', 'Q1a', 'xQ1', 'Q1 ', ' Q1', 'Q-1', 'Q1.5', 'QQ1', 'Q1x2']) expect([id, questionIndex(id, three)]).toEqual([id, -1]);
    expect(questionIndex('Q3', three.slice(0, 2))).toBe(-1);
  });

  it('count the questions nobody has answered', () => {
    expect(unanswered([])).toBe(0);
    expect(unanswered([q('a'), q('b', { text: 'yes', by: 'alice' }), q('c')])).toBe(2);
    expect(unanswered([q('b', { text: 'yes', by: 'alice' })])).toBe(0);
  });
});

describe('answerQuestion', () => {
  it('records the answer with who gave it on a copy of the list, emits question_answered, and answers the index', () => {
    const before = [q('is equity ever negative?'), q('is NaN an error?')];
    const step = new TestStep(before);
    expect(answerQuestion(step, { type: 'answer', questionId: 'Q2', answer: 'yes, raise', answeredBy: 'alice' })).toBe(1);
    expect(step.state.openQuestions).toEqual([q('is equity ever negative?'), q('is NaN an error?', { text: 'yes, raise', by: 'alice' })]);
    expect(before[1].answer).toBeUndefined(); // the input list is not changed in place
    expect(step.events).toEqual([{ type: 'question_answered', payload: { question_id: 'Q2', answered_by: 'alice', answer: 'yes, raise' } }]);
  });

  it('changes nothing for a question answered already, one the run does not have, or a run with none', () => {
    const answered = new TestStep([q('a', { text: 'no', by: 'bob' })]);
    expect(answerQuestion(answered, { type: 'answer', questionId: 'Q1', answer: 'yes', answeredBy: 'alice' })).toBeNull();
    expect(answered.state.openQuestions).toEqual([q('a', { text: 'no', by: 'bob' })]);
    const missing = new TestStep([q('a')]);
    expect(answerQuestion(missing, { type: 'answer', questionId: 'Q2', answer: 'yes', answeredBy: 'alice' })).toBeNull();
    const none = new TestStep();
    expect(answerQuestion(none, { type: 'answer', questionId: 'Q1', answer: 'yes', answeredBy: 'alice' })).toBeNull();
    expect(none.state.openQuestions).toBeUndefined();
    expect([answered, missing, none].every((s) => s.events.length === 0)).toBe(true);
  });
});

describe('answersText', () => {
  it('says (none) when nothing is answered', () => {
    expect(answersText([])).toBe('(none)');
    expect(answersText([q('a')])).toBe('(none)');
  });

  it('puts each answer in an evidence block marked as a person\'s, under its own id, one block a line apart', () => {
    const text = answersText([q('first?', { text: 'one', by: 'alice' }), q('second?'), q('third?', { text: 'three', by: 'bob' })]);
    const blocks = text.split('\n').filter((l) => l.startsWith('<evidence'));
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(/id="Q1"/);
    expect(blocks[0]).toMatch(/type="answer_from_a_person"/);
    expect(blocks[1]).toMatch(/id="Q3"/);
    expect(text).toContain('Question (critic): first?\nAnswer (from alice, a person): one');
    expect(text).toContain('Question (critic): third?\nAnswer (from bob, a person): three');
    expect(text).not.toContain('second?');
    expect(text).toMatch(/<\/evidence>\n<evidence/);
  });
});
