import { statement } from '@roundtable/persistence';

/**
 * Open questions and their answers, the engine's for every workflow (engine/answers.ts): a
 * question raised by a role is a row; a person's answer closes it.
 */

export const INSERT_OPEN_QUESTION = statement<never>()({
  text: `INSERT INTO open_questions (run_id, raised_by_role, question, status) VALUES ($1, $2, $3, 'open')`,
  params: (runId: string, role: string, question: string): unknown[] => [runId, role, question],
});

/**
 * A person's answer to the run's open question at `index` (Q<index+1>: the run's questions in
 * the order they were raised, which is their id order). Only an open question takes one.
 */
export const ANSWER_OPEN_QUESTION = statement<never>()({
  text: `UPDATE open_questions SET status = 'answered', answer = $3, answered_by = $4
    WHERE id = (SELECT id FROM open_questions WHERE run_id = $1 ORDER BY id OFFSET $2 LIMIT 1) AND status = 'open'`,
  params: (runId: string, index: number, answer: string, answeredBy: string): unknown[] => [runId, index, answer, answeredBy],
});
