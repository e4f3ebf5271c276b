import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { jobId, Implementation, ProjectConfig } from '@roundtable/contracts';
import { ArtifactEntity, ImplementationEntity, RunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import { listFileTree, PathEscapeError, prepareEmptyWorkspace, SandboxUnavailableError, writeFileChanges } from '@roundtable/sandbox';
import type { JobProducer } from '@roundtable/queues';
import type { TestRunnerChoice } from './sandbox-runners';

/** A request the test-runner refuses for good: recorded on the run, never retried. */
class WorkspaceRefusal extends Error {}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const TAIL = 4096;

/** Appended to the output of a run outside the sandbox, so the record and every prompt say so. */
export const PROCESS_RUNNER_NOTICE =
  '[runner: process] containment without a sandbox: the tests ran as a plain subprocess with network and host filesystem access (sandbox.runner: process)';

/**
 * The test-runner's work: it owns the workspace volume. Each operation is a workspace_ops
 * row the orchestrator queued; the outcome is written to that row and reported back with
 * its id. A repeated job finds the row finished and only reports again.
 */
export class WorkspaceOpsService {
  constructor(
    private readonly ds: DataSource,
    private readonly producer: JobProducer,
    private readonly workspaceRoot: string,
    private readonly runners: TestRunnerChoice,
  ) {}

  prepare(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'workspace.done', async (run) => {
      const config = run.config as unknown as ProjectConfig;
      if (config.repo) {
        throw new WorkspaceRefusal(`runs against an existing directory or repository (repo: ${config.repo}) are not supported by this test-runner yet; omit repo for a greenfield run`);
      }
      const path = await prepareEmptyWorkspace(this.workspaceRoot, runId);
      return { path, tree: await listFileTree(path) };
    });
  }

  apply(runId: string, opId: string, implementationId: string): Promise<void> {
    return this.perform(runId, opId, 'workspace.done', async (run) => {
      const impl = await this.ds.getRepository(ImplementationEntity).findOneByOrFail({ id: implementationId, runId });
      const ws = await this.workspaceOf(run);
      const files = (impl.body as unknown as Implementation).files;
      const { written } = await writeFileChanges(ws, files);
      const artifacts = files.map((f, i) => ({
        id: `${opId}-f${i + 1}`,
        runId,
        callId: impl.callId,
        kind: 'file' as const,
        path: f.path,
        sha256: sha256(f.content),
        bytes: Buffer.byteLength(f.content),
        content: f.content,
      }));
      await this.ds
        .createQueryBuilder()
        .insert()
        .into(ArtifactEntity)
        .values(artifacts as unknown as QueryDeepPartialEntity<ArtifactEntity>[])
        .orIgnore()
        .execute();
      return { written, tree: await listFileTree(ws), artifact_ids: artifacts.map((a) => a.id) };
    });
  }

  runTests(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'tests.done', async (run, op) => {
      const { command, timeoutS } = op.result as { command: string; timeoutS: number };
      const ws = await this.workspaceOf(run);
      const runner = this.runners.for((run.config as unknown as ProjectConfig).sandbox);
      const outcome = await runner.run({ workspace: ws, command, timeoutMs: Math.round(timeoutS * 1000), runId });
      if (runner.kind === 'process') outcome.output = `${outcome.output.replace(/\n?$/, '\n')}${PROCESS_RUNNER_NOTICE}\n`;
      const artifactId = `${opId}-out`;
      await this.ds
        .createQueryBuilder()
        .insert()
        .into(ArtifactEntity)
        .values({
          id: artifactId,
          runId,
          callId: null,
          kind: 'test_output',
          path: `tests/${opId}.log`,
          sha256: sha256(outcome.output),
          bytes: Buffer.byteLength(outcome.output),
          content: outcome.output,
        } as unknown as QueryDeepPartialEntity<ArtifactEntity>)
        .orIgnore()
        .execute();
      return {
        ...(op.result ?? {}), // keeps what the orchestrator asked for (the test run's label)
        command: outcome.command,
        exit_code: outcome.exit_code,
        passed: outcome.passed,
        failed: outcome.failed,
        errors: outcome.errors,
        duration_s: outcome.duration_s,
        timed_out: outcome.timed_out,
        oom_killed: outcome.oom_killed,
        output_artifact_id: artifactId,
        output_tail: outcome.output.slice(-TAIL),
        runner: runner.kind,
      };
    });
  }

  private async workspaceOf(run: RunEntity): Promise<string> {
    return run.workspacePath ?? prepareEmptyWorkspace(this.workspaceRoot, run.id);
  }

  /** Runs an operation once, records its outcome on the op row, and reports back either way. */
  private async perform(
    runId: string,
    opId: string,
    doneJob: 'workspace.done' | 'tests.done',
    work: (run: RunEntity, op: WorkspaceOpEntity) => Promise<Record<string, unknown>>,
  ): Promise<void> {
    const ops = this.ds.getRepository(WorkspaceOpEntity);
    const op = await ops.findOneByOrFail({ id: opId, runId });
    if (op.status === 'queued') {
      const run = await this.ds.getRepository(RunEntity).findOneByOrFail({ id: runId });
      if (run.status === 'cancelled') {
        await ops.update({ id: opId, status: 'queued' }, { status: 'failed', error: 'the run was cancelled', finishedAt: new Date() });
        return;
      }
      try {
        const result = await work(run, op);
        await ops.update({ id: opId, status: 'queued' }, { status: 'done', result, finishedAt: new Date() } as never);
      } catch (e) {
        // A rejected path is the engineer's mistake and part of the run's record; an I/O
        // failure is ours, and BullMQ retries it.
        // No Docker engine or no sandbox image: retrying will not help, and falling back to an
        // unsandboxed run is not ours to decide; the reason goes on the run.
        if (!(e instanceof PathEscapeError) && !(e instanceof WorkspaceRefusal) && !(e instanceof SandboxUnavailableError)) throw e;
        await ops.update({ id: opId, status: 'queued' }, { status: 'failed', error: e.message, finishedAt: new Date() });
      }
    }
    await this.producer.add(doneJob, { runId, opId }, { jobId: jobId(opId, 'done') });
  }
}
