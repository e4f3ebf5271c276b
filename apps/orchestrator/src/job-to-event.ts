import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { isAgentSchemaName, JobName, JobOf, parseWorkspaceOp, readOpFiles, Stage, type TestsOpResult } from '@roundtable/contracts';
import { RunEntity, runStatement, TestRunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import { labelOfId, testRunRecord } from './sql/build-run-state.sql';
import type { SettledCallRow } from './sql/settle-finished-call.sql';
import { INSERT_TEST_RUN, LAST_HALT_FROM_STAGE } from './sql/job-reads.sql';
import type { BuildEvent, FinishedCall } from '@roundtable/workflow';

export class StaleJobError extends Error {}

/** A finished tests op, parsed (parseWorkspaceOp): what the test-runner measured, and its label. */
function testRunEntityOf(em: EntityManager, runId: string, op: { implementationId: string | null }, r: TestsOpResult): TestRunEntity {
  return em.create(TestRunEntity, {
    id: `${runId}-${r.testLabel}`,
    runId,
    implementationId: op.implementationId!,
    label: r.testLabel,
    command: r.command,
    exitCode: r.exit_code,
    passed: r.passed,
    failed: r.failed,
    errors: r.errors,
    timedOut: r.timed_out,
    outputArtifactId: r.output_artifact_id,
    durationS: r.duration_s,
    runner: r.runner,
  });
}

/**
 * Records a finished test run. Called after decide(), because the workflow tells a new test
 * run from one it has already seen by whether the state holds it.
 */
export async function recordTestRun(em: EntityManager, runId: string, opId: string): Promise<void> {
  const row = await em.findOneByOrFail(WorkspaceOpEntity, { id: opId, runId });
  const op = parseWorkspaceOp(row);
  if (op.kind !== 'tests' || op.status !== 'done') throw new Error(`workspace op ${opId} is a ${op.status} ${op.kind} op, not a finished test run`);
  await runStatement(em, INSERT_TEST_RUN, testRunEntityOf(em, runId, row, op.result));
}

/**
 * Turns a queue job (ids only) into the workflow event it stands for, reading the rows the
 * workers wrote. A finished call (agent.done) is not mapped here: it is settled with the run
 * lock and finishedCallEvent maps the settled row.
 */
export async function jobToBuildEvent(em: EntityManager, run: RunEntity, name: JobName, payload: Record<string, unknown>): Promise<BuildEvent> {
  switch (name) {
    case 'run.start':
      return { type: 'start' };
    case 'run.cancel':
      return { type: 'cancel' };
    case 'agent.done':
      // Settled with the run lock (SETTLE_FINISHED_CALL); finishedCallEvent maps that row.
      throw new Error('agent.done is settled with the run lock, not mapped here: use finishedCallEvent');
    case 'workspace.done': {
      const p = payload as JobOf<'workspace.done'>;
      const row = await em.findOneByOrFail(WorkspaceOpEntity, { id: p.opId, runId: run.id });
      const op = parseWorkspaceOp(row);
      if (op.kind === 'read') return { type: 'files_read', opId: op.id, files: readOpFiles(op) ?? [] };
      if (op.kind === 'prepare') {
        return op.status === 'done'
          ? { type: 'workspace_prepared', opId: op.id, path: op.result.path, tree: op.result.tree }
          : { type: 'workspace_failed', opId: op.id, error: op.error ?? 'workspace preparation failed' };
      }
      if (op.kind !== 'apply') throw new Error(`workspace.done for op ${op.id}, a ${op.kind} op (its report is tests.done)`);
      const implementationLabel = labelOfId(run.id, row.implementationId) ?? '';
      return op.status === 'done'
        ? {
            type: 'files_applied',
            opId: op.id,
            implementationLabel,
            tree: op.result.tree,
            ...(op.result.diff_artifact_id ? { diffArtifactId: op.result.diff_artifact_id } : {}),
          }
        : { type: 'files_rejected', opId: op.id, implementationLabel, error: op.error ?? 'files were rejected' };
    }
    case 'tests.done': {
      const p = payload as JobOf<'tests.done'>;
      const row = await em.findOneByOrFail(WorkspaceOpEntity, { id: p.opId, runId: run.id });
      const op = parseWorkspaceOp(row);
      if (op.kind !== 'tests') throw new Error(`tests.done for op ${op.id}, a ${op.kind} op (its report is workspace.done)`);
      if (op.status !== 'done') return { type: 'tests_failed_to_run', opId: op.id, error: op.error ?? 'the test command could not run' };
      const entity = testRunEntityOf(em, run.id, row, op.result);
      return { type: 'tests_finished', opId: op.id, testRun: testRunRecord(run.id, entity, op.result.output_tail) };
    }
    case 'run.resume': {
      const p = payload as JobOf<'run.resume'>;
      if (p.from) return { type: 'resume', at: p.from, rerun: true, caps: p.caps };
      // Without a named stage, restart where the halting decision left the run.
      const {
        rows: [last],
      } = await runStatement(em, LAST_HALT_FROM_STAGE, run.id);
      return { type: 'resume', at: last?.from_stage ?? (run.stage as Stage), rerun: false, caps: p.caps };
    }
    default:
      throw new UnrecoverableError(`job ${name} is not for the orchestrator`);
  }
}

/** The workflow event for a call settled by SETTLE_FINISHED_CALL (its row, or undefined when there is none). */
export function finishedCallEvent(runId: string, callId: string, settled: object | undefined): BuildEvent {
  const call = settled as SettledCallRow | undefined;
  // Permanent (UnrecoverableError): no retry makes the row exist. A call not finished yet is a StaleJobError, retried.
  if (!call) throw new UnrecoverableError(`agent call ${callId} of run ${runId} does not exist`);
  if (call.status !== 'completed' && call.status !== 'failed') {
    throw new StaleJobError(`agent call ${call.id} is ${call.status}, not finished`);
  }
  const finished: FinishedCall = {
    id: call.id,
    role: call.role as FinishedCall['role'],
    stage: call.stage as FinishedCall['stage'],
    label: call.label,
    attempt: call.attempt,
    retry: call.retry,
    priorAttempts: call.prior,
    retryable: call.retryable ?? false,
    retryAfterMs: call.retry_after_ms,
    provider: call.provider,
    model: call.model,
    status: call.status as FinishedCall['status'],
    valid: call.valid,
    parsed: call.parsed,
    responseText: call.response_text,
    error: call.error,
    errorCode: call.error_code,
    schemaName: call.schema_name && isAgentSchemaName(call.schema_name) ? call.schema_name : null,
    messages: call.messages,
    usage: {
      inputTokens: call.input_tokens,
      outputTokens: call.output_tokens,
      costUsd: call.cost_usd === null ? null : Number(call.cost_usd),
      latencyMs: call.latency_ms,
    },
  };
  return { type: 'agent_call_finished', call: finished };
}
