import { statement } from '@roundtable/persistence';

/**
 * What the bias audit reads (issue 25 §3), one statement per kind of fact, each over the runs of
 * the scope (BIAS_AUDIT_SCOPE): plain reads of the rows the orchestrator wrote. The build's
 * critiques and reviews are `critiques` rows (target_kind proposal: the critic's; implementation:
 * the validator's and reviewer's), each written by an `agent_calls` row (role, provider, model;
 * its `seq` orders the run); a panel's verdicts and re-votes live in its snapshot
 * (runs.workflow_state, panel-stored-state.ts), each naming the call that gave it. No statement
 * names a workflow: a run has critiques rows or panel verdicts, or it has neither. A verdict whose
 * call a fork copied from its original (agent_calls.copied_from) is the original's judgement, counted
 * there: it is left out, so a forked run does not count its critic or its judges twice.
 */

/**
 * The newest runs (of a project, by name; of one team, or every team's for admin: issue 26),
 * newest first: the audit's scope. Ask for one more than the limit to learn whether more matched.
 */
export const BIAS_AUDIT_SCOPE = statement<{ id: string; created_at: Date; idea_id: string | null; idea_version: number | null }>()({
  text: `SELECT r.id, r.created_at, r.idea_id, r.idea_version
           FROM runs r JOIN projects p ON p.id = r.project_id
          WHERE ($1::text IS NULL OR p.name = $1) AND ($3::text IS NULL OR r.team = $3)
          ORDER BY r.created_at DESC, r.id DESC
          LIMIT $2`,
  params: (project: string | null, limit: number, team: string | null): unknown[] => [project, limit, team],
});

/**
 * Every critique and review of the scope's runs, with the call that wrote it and the provider of
 * the call that wrote what it judged: the proposal's (its proposer, or the reviser of a revision)
 * or the implementation's (the engineer).
 */
export const BIAS_AUDIT_CRITIQUES = statement<{
  run_id: string;
  seq: number;
  role: string;
  provider: string;
  model: string;
  target_kind: 'proposal' | 'implementation';
  verdict: string;
  author_provider: string | null;
}>()({
  text: `SELECT k.run_id, c.seq, c.role, c.provider, c.model, k.target_kind, k.verdict, coalesce(pc.provider, ic.provider) AS author_provider
           FROM critiques k
           JOIN agent_calls c ON c.id = k.call_id
           LEFT JOIN proposals p ON k.target_kind = 'proposal' AND p.id = k.target_id
           LEFT JOIN agent_calls pc ON pc.id = p.call_id
           LEFT JOIN implementations i ON k.target_kind = 'implementation' AND i.id = k.target_id
           LEFT JOIN agent_calls ic ON ic.id = i.call_id
          WHERE k.run_id = ANY($1::text[]) AND c.copied_from IS NULL`,
  params: (runIds: string[]): unknown[] => [runIds],
});

/**
 * Every finished test run of the scope's runs, placed in its run by the call that wrote the
 * implementation it tested; passed as the build reads it (exit code 0).
 */
export const BIAS_AUDIT_TEST_RUNS = statement<{ run_id: string; seq: number; passed: boolean }>()({
  text: `SELECT t.run_id, c.seq, (t.exit_code = 0) AS passed
           FROM test_runs t
           JOIN implementations i ON i.id = t.implementation_id
           JOIN agent_calls c ON c.id = i.call_id
          WHERE t.run_id = ANY($1::text[])`,
  params: (runIds: string[]): unknown[] => [runIds],
});

/** The judges' roast verdicts in the scope's panel snapshots (`verdicts`), with the call that gave each. */
export const BIAS_AUDIT_VERDICTS = statement<{ run_id: string; seq: number; judge: string; score: string; provider: string; model: string }>()({
  text: `SELECT r.id AS run_id, c.seq, v ->> 'judge' AS judge, v -> 'body' ->> 'score' AS score, c.provider, c.model
           FROM runs r
          CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.workflow_state -> 'verdicts') = 'array' THEN r.workflow_state -> 'verdicts' ELSE '[]'::jsonb END) v
           JOIN agent_calls c ON c.id = v ->> 'callId'
          WHERE r.id = ANY($1::text[]) AND c.copied_from IS NULL AND jsonb_typeof(v -> 'body' -> 'score') = 'number'`,
  params: (runIds: string[]): unknown[] => [runIds],
});

/** The judges' re-votes in the scope's panel snapshots (`revotes` of phase revote: an appeal's re-score is new evidence, not a re-vote). */
export const BIAS_AUDIT_REVOTES = statement<{ run_id: string; seq: number; judge: string; previous: string; score: string; provider: string; model: string }>()({
  text: `SELECT r.id AS run_id, c.seq, v ->> 'judge' AS judge, v ->> 'previous' AS previous, v ->> 'score' AS score, c.provider, c.model
           FROM runs r
          CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.workflow_state -> 'revotes') = 'array' THEN r.workflow_state -> 'revotes' ELSE '[]'::jsonb END) v
           JOIN agent_calls c ON c.id = v ->> 'callId'
          WHERE r.id = ANY($1::text[]) AND c.copied_from IS NULL AND v ->> 'phase' = 'revote'
            AND jsonb_typeof(v -> 'score') = 'number' AND jsonb_typeof(v -> 'previous') = 'number'`,
  params: (runIds: string[]): unknown[] => [runIds],
});
