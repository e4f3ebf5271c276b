import { Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE } from '@roundtable/contracts';
import type { RoundtableMetrics } from '@roundtable/observability';
import { startTypedWorker } from '@roundtable/queues';
import type { WorkspaceOpsService } from './workspace-ops.service';

/** Consumes the `workspace` and `tests` queues; each job is one workspace_ops row. */
export class TestRunnerWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('test-runner');
  private workers: Worker[] = [];

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly ops: WorkspaceOpsService,
    private readonly concurrency: number,
    private readonly metrics?: RoundtableMetrics,
  ) {}

  onApplicationBootstrap(): void {
    const common = { connection: this.connection, prefix: this.prefix, concurrency: this.concurrency, metrics: this.metrics };
    this.workers = [
      startTypedWorker({
        ...common,
        kind: 'workspace',
        queueName: QUEUE.workspace,
        handlers: {
          'workspace.prepare': (p) => this.ops.prepare(p.runId, p.opId),
          'workspace.apply': (p) => this.ops.apply(p.runId, p.opId, p.implementationId),
          'workspace.read': (p) => this.ops.read(p.runId, p.opId),
        },
      }),
      startTypedWorker({
        ...common,
        kind: 'tests',
        queueName: QUEUE.tests,
        handlers: { 'tests.run': (p) => this.ops.runTests(p.runId, p.opId) },
      }),
    ];
    for (const w of this.workers) w.on('failed', (job, err) => this.log.error(`${job?.name} ${job?.id} failed: ${err.message}`));
    this.log.log(`consuming queues ${this.prefix}:${QUEUE.workspace} and ${this.prefix}:${QUEUE.tests}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
