import type { RunStage } from '@roundtable/contracts';
import { statement, type TestRunEntity } from '@roundtable/persistence';

/**
 * What turning a job into a workflow event reads and records (job-to-event.ts), beside the
 * settling of a finished call (settle-finished-call.sql.ts).
 */

/** Where the halting decision left a run: a plain resume restarts there. No row: the run never halted. */
export const LAST_HALT_FROM_STAGE = statement<{ from_stage: RunStage }>()({
  text: `SELECT from_stage FROM decisions WHERE run_id = $1 AND to_stage = 'HALTED' ORDER BY id DESC LIMIT 1`,
  params: (runId: string): unknown[] => [runId],
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
