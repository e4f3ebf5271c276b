import { Processor } from '@nestjs/bullmq';
import { QUEUE } from '@roundtable/contracts';
import type { RoundtableMetrics } from '@roundtable/observability';
import { inWorkspaceOpSpan } from './workspace-op.span';
import { JobRoutes, TypedProcessor, workerOptionsFor } from '@roundtable/queues';
import type { WorkspaceOpsService } from './workspace-ops.service';

/** Consumes the `tests` queue; each job is one workspace_ops row, a test run (or an experiment's command) in the sandbox. */
@Processor(QUEUE.tests, workerOptionsFor('tests'))
export class TestsProcessor extends TypedProcessor {
  constructor(ops: WorkspaceOpsService, settings: { concurrency: number; metrics?: RoundtableMetrics }) {
    super(new JobRoutes('tests', QUEUE.tests, {
        'tests.run': (p) => inWorkspaceOpSpan('tests.run', p, () => ops.runTests(p.runId, p.opId)),
        'experiment.run': (p) => inWorkspaceOpSpan('experiment.run', p, () => ops.runExperiment(p.runId, p.opId)),
        'eval.score': (p) => ops.scoreEvalCell(p.cellId),
      }), { service: 'test-runner', ...settings });
  }
}
