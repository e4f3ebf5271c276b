import { Processor } from '@nestjs/bullmq';
import { QUEUE } from '@roundtable/contracts';
import type { RoundtableMetrics } from '@roundtable/observability';
import { inWorkspaceOpSpan } from './workspace-op.span';
import { JobRoutes, TypedProcessor, workerOptionsFor } from '@roundtable/queues';
import type { WorkspaceOpsService } from './workspace-ops.service';

/** Consumes the `workspace` queue; each job is one workspace_ops row. */
@Processor(QUEUE.workspace, workerOptionsFor('workspace'))
export class WorkspaceProcessor extends TypedProcessor {
  constructor(ops: WorkspaceOpsService, settings: { concurrency: number; metrics?: RoundtableMetrics }) {
    super(
      new JobRoutes('workspace', QUEUE.workspace, {
        'workspace.prepare': (p) => inWorkspaceOpSpan('workspace.prepare', p, () => ops.prepare(p.runId, p.opId)),
        'workspace.apply': (p) => inWorkspaceOpSpan('workspace.apply', p, () => ops.apply(p.runId, p.opId, p.implementationId)),
        'workspace.read': (p) => inWorkspaceOpSpan('workspace.read', p, () => ops.read(p.runId, p.opId)),
        'workspace.merge': (p) => inWorkspaceOpSpan('workspace.merge', p, () => ops.merge(p.runId, p.opId)),
        'workspace.tool': (p) => inWorkspaceOpSpan('workspace.tool', p, () => ops.tool(p.runId, p.opId)),
        'workspace.export': (p) => inWorkspaceOpSpan('workspace.export', p, () => ops.export(p.runId, p.opId)),
      }),
      { service: 'test-runner', ...settings },
    );
  }
}
