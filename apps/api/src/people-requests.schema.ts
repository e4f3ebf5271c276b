import { z } from 'zod';

/**
 * The bodies of POST /v1/runs/:id/approvals and /answers (issue 21). An unknown field is refused
 * rather than ignored, so a typo (`desicion`) cannot pass as an approval without its decision.
 */

const NOTE_MAX = 4000;
const ANSWER_MAX = 8000;
const CRITERION_MAX = 2000;

const unknownKeys = (what: string, example: string) => (iss: { code?: string; keys?: string[]; path?: PropertyKey[] }) =>
  iss.code === 'unrecognized_keys' && iss.keys
    ? iss.keys.map((k) => `${[...(iss.path ?? []).map(String), k].join('.')} is not a field of ${what}`).join('; ')
    : `the body must be a JSON object such as ${example}`;

export const ApprovalRequest = z
  .object(
    {
      gate: z.string({ error: 'gate names the gate the run waits at, e.g. "criteria" or "merge"' }).min(1, 'gate names the gate the run waits at, e.g. "criteria" or "merge"'),
      decision: z.enum(['approve', 'reject'], { error: 'decision is "approve" or "reject"' }),
      note: z.string({ error: 'note is text' }).max(NOTE_MAX, `note is at most ${NOTE_MAX} characters`).optional(),
      /** At the criteria gate: the criteria as approved (an entry without an id is new; a locked id left out is dropped). */
      edits: z
        .object(
          {
            criteria: z
              .array(
                z
                  .object({
                    id: z.string().regex(/^AC\d+$/, 'edits.criteria[].id is a locked criterion id such as AC2 (leave it out for a new criterion)').optional(),
                    text: z.string({ error: 'edits.criteria[].text is the criterion' }).trim().min(1, 'edits.criteria[].text is the criterion').max(CRITERION_MAX, `edits.criteria[].text is at most ${CRITERION_MAX} characters`),
                  })
                  .strict(),
                { error: 'edits.criteria is a list of { id?, text }' },
              )
              .min(1, 'edits.criteria lists at least one criterion (refuse the gate to stop the run instead)')
              .max(100, 'edits.criteria lists at most 100 criteria'),
          },
          { error: unknownKeys('edits', '{ "criteria": [{ "id": "AC1", "text": "…" }] }') },
        )
        .strict()
        .optional(),
    },
    { error: unknownKeys('an approval', '{ "gate": "criteria", "decision": "approve" }') },
  )
  .strict();
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

export const AnswerRequest = z
  .object(
    {
      question_id: z.string({ error: 'question_id names the open question, e.g. "Q1" (GET /v1/runs/:id lists them)' }).regex(/^Q[1-9]\d*$/, 'question_id names the open question, e.g. "Q1" (GET /v1/runs/:id lists them)'),
      answer: z.string({ error: 'answer is the text of the answer' }).trim().min(1, 'answer is the text of the answer').max(ANSWER_MAX, `answer is at most ${ANSWER_MAX} characters`),
    },
    { error: unknownKeys('an answer', '{ "question_id": "Q1", "answer": "…" }') },
  )
  .strict();
export type AnswerRequest = z.infer<typeof AnswerRequest>;
