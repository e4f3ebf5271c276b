import { trace } from '@opentelemetry/api';
import { ATTR_STAGE_AFTER, ATTR_STAGE_BEFORE, ATTR_WORKFLOW } from '@roundtable/observability';

/**
 * What only the step knows, on the step's span (started around it by OrchestratorProcessor): the
 * run's workflow and its stage before and after. Nothing when tracing is off (no active span).
 */
export function noteStepOnSpan(run: { workflow: string; stage: string }, after: { stage?: unknown } | null): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttributes({ [ATTR_WORKFLOW]: run.workflow, [ATTR_STAGE_BEFORE]: run.stage });
  if (typeof after?.stage === 'string') span.setAttribute(ATTR_STAGE_AFTER, after.stage);
}
