// The experiment op (issue 24): an experiment's preregistered command run at its pinned commit, its metrics read.
import type { DataSource } from 'typeorm';
import { workspaceOpRequest } from '@roundtable/contracts';
import type { RunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import { prepareCommitWorktree, type TestRunner, type TestRunOutcome } from '@roundtable/sandbox';
import { freshMetricsDirectory, lockedExperiment, metricsPathFor, readMetricsFile } from './experiment-run';
import { readMetrics } from './read-metrics';

/** What the op uses of WorkspaceOpsService: the database, the workspace root, its policy checks, runners and artifact store. */
export interface ExperimentOpHost {
  ds: DataSource;
  workspaceRoot: string;
  /** How much of the output the op's result keeps (as a test run's does). */
  outputTail: number;
  admitRepo(repo: string): Promise<string>;
  admittedRunner(run: RunEntity, timeoutS: number): Promise<TestRunner>;
  runIn(runner: TestRunner, workspace: string, command: string, timeoutS: number, runId: string, env?: Record<string, string>): Promise<TestRunOutcome>;
  storeArtifacts(rows: { id: string; runId: string; callId: null; kind: 'test_output'; path: string; content: string }[]): Promise<void>;
}

/**
 * An experiment's preregistered command (issue 24), run in the sandbox in a worktree of its
 * repository at the pinned commit (`<root>/<runId>/experiment`), with ROUNDTABLE_METRICS naming
 * the metrics file as the command sees it. Refused (recorded, not retried) when the experiment
 * is missing, its stored preregistration no longer hashes to its locked hash, the op was queued
 * for another hash, or it has a result already. The metrics are the file's, else the last JSON
 * object line of the output; any declared metric missing or not a number, or a non-zero exit,
 * gives no metrics and says why (read-metrics.ts). The output is stored as an artifact.
 */
export async function runExperimentOp(host: ExperimentOpHost, run: RunEntity, op: WorkspaceOpEntity): Promise<Record<string, unknown>> {
  const [runId, opId] = [run.id, op.id];
  const request = workspaceOpRequest('experiment', op);
  await lockedExperiment(host.ds, request);
  // As prepare admits a run's repo: the policy's check, on the real path here.
  const repo = await host.admitRepo(request.repo);
  // Before the worktree is touched: a refused run leaves nothing behind.
  const runner = await host.admittedRunner(run, request.timeout_s);
  const worktree = await prepareCommitWorktree(host.workspaceRoot, runId, repo, request.commit);
  await freshMetricsDirectory(worktree);
  const metricsPath = metricsPathFor(runner.kind, worktree);
  const outcome = await host.runIn(runner, worktree, request.command, request.timeout_s, runId, { ROUNDTABLE_METRICS: metricsPath });
  const file = await readMetricsFile(worktree, metricsPath);
  const reading = readMetrics({
    declared: request.metrics,
    fileText: file.text,
    fileShownAs: metricsPath,
    fileProblem: file.problem,
    output: outcome.output,
    exitCode: outcome.exit_code,
    timedOut: outcome.timed_out,
  });
  const artifactId = `${opId}-out`;
  await host.storeArtifacts([{ id: artifactId, runId, callId: null, kind: 'test_output', path: `experiments/${opId}.log`, content: outcome.output }]);
  return {
    experiment_id: request.experiment_id,
    prereg_hash: request.prereg_hash,
    commit: request.commit,
    command: outcome.command,
    exit_code: outcome.exit_code,
    duration_s: outcome.duration_s,
    timed_out: outcome.timed_out,
    oom_killed: outcome.oom_killed,
    ...reading,
    output_artifact_id: artifactId,
    output_tail: outcome.output.slice(-host.outputTail),
    runner: runner.kind,
  };
}
