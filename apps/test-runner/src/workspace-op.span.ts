import { ATTR_JOB_NAME, ATTR_OP_ID, ATTR_RUN_ID, inSpan, SPAN } from '@roundtable/observability';

/**
 * One workspace operation (prepare, apply, read, or a test run) as a span, a child of the
 * orchestrator step that queued it (JobRoutes restores the job's trace context); the report
 * it sends back (workspace.done / tests.done) carries this span's context on.
 */
export function inWorkspaceOpSpan(job: string, p: { runId: string; opId: string }, op: () => Promise<void>): Promise<void> {
  return inSpan(SPAN.workspaceOp(job), { [ATTR_RUN_ID]: p.runId, [ATTR_OP_ID]: p.opId, [ATTR_JOB_NAME]: job }, op);
}
