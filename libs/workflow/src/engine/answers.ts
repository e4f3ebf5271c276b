import { evidenceBlock } from '../evidence-block';
import type { StepAccumulator } from './step-accumulator';

/**
 * Open questions and a person's answers, the part every workflow shares (issue 21). A question
 * is raised by a role (a blocker still open at the round limit, a NEEDS_EVIDENCE verdict …)
 * and has the id `Q<n>`, its place in the run's list: the list only grows, so ids never move.
 * An answer is recorded with who gave it, closes the question, and enters later prompts in an
 * evidence block marked as a person's. Whether the run then goes on is the workflow's call.
 */

export interface AnswerableQuestion {
  role: string;
  question: string;
  /** Set once a person answered it (or an experiment did: `experiment` names it). */
  answer?: { text: string; by: string; experiment?: string };
}

/** A person's answer, as the api accepted it (`answeredBy`: the token's name). */
export interface AnswerEvent {
  type: 'answer';
  questionId: string;
  answer: string;
  answeredBy: string;
  /** The answer is this experiment's decision, not a person's (issue 24). */
  experimentId?: string;
}

export const questionId = (index: number): string => `Q${index + 1}`;

/** The index of `id` in the list, or -1 (a malformed id, or past the end). */
export function questionIndex(id: string, questions: readonly AnswerableQuestion[]): number {
  const m = /^Q([1-9]\d*)$/.exec(id);
  const i = m ? Number(m[1]) - 1 : -1;
  return i < questions.length ? i : -1;
}

/** Questions no one has answered yet. */
export const unanswered = (questions: readonly AnswerableQuestion[]): number => questions.filter((q) => !q.answer).length;

type AnsweringStep = StepAccumulator<{ runId: string; stage: string; counters: Record<string, number>; config: unknown; openQuestions?: AnswerableQuestion[] }, string, unknown, unknown>;

/**
 * Raises question Q<n> from `role`: on the state (the next id is its place), as an open_question
 * record (its open_questions row) and an open_question_raised event. Any workflow's: a build's
 * critic needing evidence, an experiment's critic disagreeing with a reading.
 */
export function raiseQuestion(step: AnsweringStep, role: string, question: string): void {
  step.state.openQuestions = [...(step.state.openQuestions ?? []), { role, question }];
  step.records.push({ kind: 'open_question', role, question });
  step.emit('open_question_raised', { role, question });
}

/**
 * Records the answer to an open question: the question's index when it applied, else null. A
 * question answered already, or one the run does not have, changes nothing (the api refuses both
 * before a job is sent).
 */
export function answerQuestion(step: AnsweringStep, event: AnswerEvent): number | null {
  const questions = step.state.openQuestions ?? [];
  const i = questionIndex(event.questionId, questions);
  if (i < 0 || questions[i].answer) return null;
  const next = [...questions];
  next[i] = { ...questions[i], answer: { text: event.answer, by: event.answeredBy, ...(event.experimentId ? { experiment: event.experimentId } : {}) } };
  step.state.openQuestions = next;
  step.emit('question_answered', { question_id: event.questionId, answered_by: event.answeredBy, answer: event.answer });
  return i;
}

/**
 * The answers given, for a prompt: each in an evidence block marked as a person's, or as an
 * experiment's decision (made by code from its preregistered criteria), with the question it answers.
 */
export function answersText(questions: readonly AnswerableQuestion[]): string {
  const answered = questions.map((q, i) => ({ q, id: questionId(i) })).filter(({ q }) => q.answer);
  if (!answered.length) return '(none)';
  return answered
    .map(({ q, id }) => {
      const a = q.answer!;
      const who = a.experiment ? `from experiment ${a.experiment}, decided by code from its preregistered criteria` : `from ${a.by}, a person`;
      return evidenceBlock(`${id}`, a.experiment ? 'experiment_decision' : 'answer_from_a_person', `Question (${q.role}): ${q.question}\nAnswer (${who}): ${a.text}`);
    })
    .join('\n');
}
