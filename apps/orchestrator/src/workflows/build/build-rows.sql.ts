import type { TestRunEntity } from '@roundtable/persistence';
import { statement } from '@roundtable/persistence';
import type { CritiqueRecord, ImplementationRecord, ProposalRecord, SynthesisRecord } from '@roundtable/workflow';
import { idOf, jsonParam } from '../../sql/step-writes.sql';

/**
 * The build's own rows, written by its step beside the engine's (sql/step-writes.sql.ts): the
 * run row's build columns, proposals, critiques, implementations, the synthesis, open
 * questions and test runs. Inserts use deterministic ids with ON CONFLICT DO NOTHING, so a
 * replayed step adds nothing.
 */

/** What a step leaves on the run row. `config` undefined: unchanged; `verdict` null: unchanged (and confidence with it). */
export interface RunAfterStep {
  status: string;
  stage: string;
  round: number;
  fixRound: number;
  criteria: unknown;
  unresolved: boolean;
  haltReason: string | null;
  config: unknown;
  workspacePath: string | null;
  /** The snapshot of the build's records at the event_seq this UPDATE leaves (toStoredBuildState). */
  workflowState: unknown;
  labelCounters: Record<string, number>;
  callSeq: number;
  verdict: string | null;
  confidence: number | null;
  /** Set when the run starts or ends in this step; null leaves the column as it is. */
  startedAt: Date | null;
  finishedAt: Date | null;
  /** How many events the step appends: event_seq moves past them in this same UPDATE. */
  events: number;
  /** The hash chain's head after those events, and its signature when the step ends the run (null: kept). */
  headHash: string | null;
  signature: unknown;
}

/**
 * The run row after a step. The row is locked FOR UPDATE by the step (run.eventSeq was read
 * under the lock), so the events are numbered from it and event_seq moves past them here
 * instead of in a separate UPDATE per append: no other writer can move it meanwhile, and the
 * log stays gap-free (run_events' primary key refuses a number used twice). One text for every
 * step (unchanged columns come as NULL and are kept), so it is prepared once per connection.
 * Answers no rows; rowCount 0 means the run does not exist.
 */
export const UPDATE_RUN_AFTER_STEP = statement<never>()({
  text: `UPDATE runs SET status = $2, stage = $3, round = $4, fix_round = $5, criteria = $6::jsonb, criteria_locked = $6::jsonb IS NOT NULL,
                      unresolved = $7, halt_reason = $8, config = coalesce($9::jsonb, config), workspace_path = $10,
                      label_counters = $11::jsonb, call_seq = $12,
                      verdict = coalesce($13::text, verdict), confidence = CASE WHEN $13::text IS NULL THEN confidence ELSE $14::double precision END,
                      started_at = coalesce($15::timestamptz, started_at), finished_at = coalesce($16::timestamptz, finished_at),
                      event_seq = event_seq + $17, workflow_state = $18::jsonb,
                      head_hash = $19, signature = coalesce($20::jsonb, signature), updated_at = now()
    WHERE id = $1`,
  params: (runId: string, r: RunAfterStep): unknown[] => [
    runId,
    r.status,
    r.stage,
    r.round,
    r.fixRound,
    jsonParam(r.criteria),
    r.unresolved,
    r.haltReason,
    r.config === undefined ? null : jsonParam(r.config),
    r.workspacePath,
    jsonParam(r.labelCounters),
    r.callSeq,
    r.verdict,
    r.verdict === null ? null : r.confidence,
    r.startedAt,
    r.finishedAt,
    r.events,
    jsonParam(r.workflowState),
    r.headHash,
    r.signature ? jsonParam(r.signature) : null,
  ],
});

export const INSERT_PROPOSAL = statement<never>()({
  text: `INSERT INTO proposals (id, run_id, call_id, label, revision_of, round, status, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING`,
  params: (runId: string, r: ProposalRecord): unknown[] => [r.id, runId, r.callId, r.label, idOf(runId, r.revisionOf), r.round, r.status, jsonParam(r.body)],
});

export const UPDATE_PROPOSAL_STATUS = statement<never>()({
  text: `UPDATE proposals SET status = $2 WHERE id = $1`,
  params: (runId: string, label: string, status: ProposalRecord['status']): unknown[] => [idOf(runId, label), status],
});

export const INSERT_CRITIQUE = statement<never>()({
  text: `INSERT INTO critiques (id, run_id, call_id, label, target_kind, target_id, verdict, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING`,
  params: (runId: string, r: CritiqueRecord): unknown[] => [r.id, runId, r.callId, r.label, r.targetKind, idOf(runId, r.targetLabel), r.verdict, jsonParam(r.body)],
});

export const INSERT_IMPLEMENTATION = statement<never>()({
  text: `INSERT INTO implementations (id, run_id, call_id, label, proposal_id, fix_round, status, apply_error, body, artifact_ids)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '[]') ON CONFLICT DO NOTHING`,
  params: (runId: string, r: ImplementationRecord): unknown[] => [
    r.id,
    runId,
    r.callId,
    r.label,
    idOf(runId, r.proposalLabel),
    r.fixRound,
    r.status,
    r.applyError ?? null,
    jsonParam(r.body),
  ],
});

export const UPDATE_IMPLEMENTATION_STATUS = statement<never>()({
  text: `UPDATE implementations SET status = $2, apply_error = $3 WHERE id = $1`,
  params: (runId: string, label: string, status: ImplementationRecord['status'], applyError: string | null | undefined): unknown[] => [
    idOf(runId, label),
    status,
    applyError ?? null,
  ],
});

export const INSERT_SYNTHESIS = statement<never>()({
  text: `INSERT INTO syntheses (id, run_id, call_id, label, verdict, partial, body) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
  params: (runId: string, r: SynthesisRecord): unknown[] => [r.id, runId, r.callId ?? null, r.label, r.body?.overall_verdict ?? null, r.partial, jsonParam(r.body)],
});

/** A finished test run, once (its id is `${runId}-${label}`: a replayed step adds nothing). */
export const INSERT_TEST_RUN = statement<never>()({
  text: `INSERT INTO test_runs (id, run_id, implementation_id, label, command, exit_code, passed, failed, errors, timed_out, output_artifact_id, duration_s, runner)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING`,
  params: (
    t: Pick<TestRunEntity, 'id' | 'runId' | 'implementationId' | 'label' | 'command' | 'exitCode' | 'passed' | 'failed' | 'errors' | 'timedOut' | 'outputArtifactId' | 'durationS' | 'runner'>,
  ): unknown[] => [t.id, t.runId, t.implementationId, t.label, t.command, t.exitCode, t.passed, t.failed, t.errors, t.timedOut, t.outputArtifactId, t.durationS, t.runner],
});

/** The beginning of a committed round's diff (its artifacts row), for the files_applied event: the whole diff stays in the row. */
export const APPLIED_DIFF_TEXT = statement<{ text: string; chars: number }>()({
  text: `SELECT left(content, $2) AS text, char_length(content) AS chars FROM artifacts WHERE id = $1`,
  params: (artifactId: string, promptChars: number): unknown[] => [artifactId, promptChars],
});
