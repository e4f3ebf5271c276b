import { UnrecoverableError } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { isAgentSchemaName, parseWorkspaceOp, type TestsOpResult } from '@roundtable/contracts';
import { runStatement, TestRunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import type { SettledCallRow } from './sql/settle-finished-call.sql';
import { INSERT_TEST_RUN } from './sql/job-reads.sql';
import type { FinishedCall } from '@roundtable/workflow';

export class StaleJobError extends Error {}

/** A finished tests op, parsed (parseWorkspaceOp): what the test-runner measured, and its label. */
export function testRunEntityOf(em: EntityManager, runId: string, op: { implementationId: string | null }, r: TestsOpResult): TestRunEntity {
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

/** The workflow event for a call settled by SETTLE_FINISHED_CALL (its row, or undefined when there is none). */
export function finishedCallEvent(runId: string, callId: string, settled: object | undefined): { type: 'agent_call_finished'; call: FinishedCall } {
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
