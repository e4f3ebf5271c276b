import type { EntityManager } from 'typeorm';
import { parseWorkspaceOp, type TestsOpResult } from '@roundtable/contracts';
import { addStatement, runStatement, StatementBatch, TestRunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import type { DomainRecord } from '@roundtable/workflow';
import { ANSWER_OPEN_QUESTION, INSERT_OPEN_QUESTION } from '../../sql/open-questions.sql';
import {
  INSERT_CRITIQUE,
  INSERT_IMPLEMENTATION,
  INSERT_PROPOSAL,
  INSERT_SYNTHESIS,
  INSERT_TEST_RUN,
  UPDATE_IMPLEMENTATION_STATUS,
  UPDATE_PROPOSAL_STATUS,
} from './build-rows.sql';

/** How the build's step queues its own rows (build-rows.sql.ts): its domain records and its finished test runs. */

/** Queues the statement that writes one build domain record (build-rows.sql.ts). */
export function writeRecord(batch: StatementBatch, runId: string, r: DomainRecord): void {
  switch (r.kind) {
    case 'proposal':
      addStatement(batch, INSERT_PROPOSAL, runId, r.record);
      return;
    case 'proposal_status':
      addStatement(batch, UPDATE_PROPOSAL_STATUS, runId, r.label, r.status);
      return;
    case 'critique':
      addStatement(batch, INSERT_CRITIQUE, runId, r.record);
      return;
    case 'implementation':
      addStatement(batch, INSERT_IMPLEMENTATION, runId, r.record);
      return;
    case 'implementation_status':
      addStatement(batch, UPDATE_IMPLEMENTATION_STATUS, runId, r.label, r.status, r.applyError);
      return;
    case 'synthesis':
      addStatement(batch, INSERT_SYNTHESIS, runId, r.record);
      return;
    case 'open_question':
      addStatement(batch, INSERT_OPEN_QUESTION, runId, r.role, r.question);
      return;
    case 'question_answer':
      addStatement(batch, ANSWER_OPEN_QUESTION, runId, r.index, r.answer, r.answeredBy);
      return;
  }
}

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

