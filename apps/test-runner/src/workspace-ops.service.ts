import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import {
  jobId,
  Implementation,
  mayRunTests,
  type OperatorPolicy,
  ProjectConfig,
  ReadOpRequest,
  type ToolOpChanges,
  type ToolResult,
  workspaceOpRequest,
  workspaceOpResult,
  WorkspaceOpRowError,
} from '@roundtable/contracts';
import { ArtifactEntity, ImplementationEntity, RunEntity, WorkspaceOpEntity } from '@roundtable/persistence';
import {
  collectAgentChanges,
  commitWorkspace,
  exportRunBranch,
  GitCommandError,
  GitUnavailableError,
  listFileTree,
  mergeRunBranch,
  openRepoWorkspace,
  PathEscapeError,
  planWorkspaceDeletions,
  prepareEmptyWorkspace,
  prepareRepoWorkspace,
  RepoUnusableError,
  runDirectory,
  SandboxRefusedError,
  SandboxUnavailableError,
  workspaceDiff,
  workspaceDiffStat,
  writeFileChanges,
} from '@roundtable/sandbox';
import type { TestRunner, TestRunOutcome } from '@roundtable/sandbox';
import type { JobProducer } from '@roundtable/queues';
import { PolicyRefusedError } from './policy-refused.error';
import { RunPolicy } from './run-policy';
import type { TestRunnerChoice } from './sandbox-runners';
import { runInSandboxSpan } from './sandbox-run.span';
import { readOne } from './read-one';
import { runEngineerTool, type ToolTestRun } from './engineer-tools';
import { ExperimentRefusedError } from './experiment-refused.error';
import { runExperimentOp, type ExperimentOpHost } from './experiment-op';
import { scoreEvalCell } from './eval/eval-scorer';

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** An artifact row as stored: text as it is; bytes (a bundle, a patch) as base64, their hash and size the raw bytes'. */
interface NewArtifact {
  id: string;
  runId: string;
  callId: string | null;
  kind: 'file' | 'diff' | 'test_output' | 'bundle' | 'patch';
  path: string;
  content: string | Buffer;
}
const TAIL = 4096;
/** The stored diff artifact; the prompts take a smaller piece of it. */
const MAX_DIFF_BYTES = 1024 * 1024;

/**
 * Failures retrying cannot fix: recorded on the op (and so on the run) instead of rethrown.
 * A rejected path is the engineer's mistake and part of the run's record. No Docker engine or
 * no sandbox image: falling back to an unsandboxed run is not ours to decide. An unusable repo
 * or a git command that failed (git's own message says why) will fail the same way again. A
 * request outside the operator's policy, or a container the engine refuses as asked, is the
 * run's, and the same request would be refused again. An op row whose request (or our answer to
 * it) is not what its kind says (WorkspaceOpRowError, naming the op and the field) reads the same
 * on every retry.
 */
const RECORDED_FAILURES = [
  PathEscapeError,
  SandboxUnavailableError,
  SandboxRefusedError,
  PolicyRefusedError,
  RepoUnusableError,
  GitCommandError,
  GitUnavailableError,
  WorkspaceOpRowError,
  ExperimentRefusedError,
];

/** Appended to the output of a run outside the sandbox, so the record and every prompt say so. */
export const PROCESS_RUNNER_NOTICE =
  '[runner: process] containment without a sandbox: the tests ran as a plain subprocess with network and host filesystem access (sandbox.runner: process)';

/**
 * The test-runner's work: it owns the workspace volume. Each operation is a workspace_ops
 * row the orchestrator queued; the outcome is written to that row and reported back with
 * its id. A repeated job finds the row finished and only reports again.
 */
export class WorkspaceOpsService {
  private readonly checks: RunPolicy;

  constructor(
    private readonly ds: DataSource,
    private readonly producer: JobProducer,
    private readonly workspaceRoot: string,
    private readonly runners: TestRunnerChoice,
    /** The operator's policy, read once at start (readOperatorPolicy). */
    policy: OperatorPolicy,
  ) {
    this.checks = new RunPolicy(policy, runners);
  }

  prepare(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'workspace.done', async (run) => {
      const config = run.config as unknown as ProjectConfig;
      // The api has checked repo against the policy, on its own machine; this is ours, on the
      // real path here. The resolved path is what is used, so a link swapped later is not followed.
      const repo = config.repo ? await this.checks.admitRepo(config.repo) : null;
      const ws = await prepareRepoWorkspace(this.workspaceRoot, runId, repo);
      return {
        path: ws.path,
        tree: await listFileTree(ws.path),
        source: ws.source,
        origin: ws.origin,
        branch: ws.git?.branch ?? null,
        base_commit: ws.git?.baseCommit ?? null,
        notes: ws.notes,
      };
    });
  }

  apply(runId: string, opId: string, implementationId: string): Promise<void> {
    return this.perform(runId, opId, 'workspace.done', async (run) => {
      const impl = await this.ds.getRepository(ImplementationEntity).findOneByOrFail({ id: implementationId, runId });
      const ws = await this.workspaceOf(run);
      const { files, deleted: toDelete = [] } = impl.body as unknown as Implementation;
      // Every deletion and every write is checked before anything changes, so a bad path leaves the workspace as it was.
      const deletion = await planWorkspaceDeletions(ws, toDelete);
      const { written } = await writeFileChanges(ws, files);
      await deletion.run();
      const artifacts: NewArtifact[] = files.map((f, i) => ({ id: `${opId}-f${i + 1}`, runId, callId: impl.callId, kind: 'file', path: f.path, content: f.content }));
      await this.storeArtifacts(artifacts);
      const committed = await this.commitRound(run, opId, impl, written);
      return {
        written,
        ...(deletion.deleted.length ? { deleted: deletion.deleted } : {}),
        ...(deletion.missing.length ? { not_there: deletion.missing } : {}),
        tree: await listFileTree(ws),
        artifact_ids: artifacts.map((a) => a.id),
        ...committed,
      };
    });
  }

  /**
   * The round becomes a commit on the run branch, and the diff of every round so far against
   * the base becomes an artifact: reviewers see all of the work, not the last round's files.
   * A workspace made before git workspaces (or without git) gets none of it.
   */
  private async commitRound(run: RunEntity, opId: string, impl: ImplementationEntity, written: string[]): Promise<Record<string, unknown>> {
    const ws = await openRepoWorkspace(this.workspaceRoot, run.id);
    if (!ws?.git) return {};
    const body = impl.body as unknown as Implementation;
    const { commit, committed } = await commitWorkspace(ws, { message: commitMessage(run.id, impl.label, body), paths: written });
    // A repeated job finds its commit already made: the round is measured from the round before.
    const [previous] = (await this.ds.query(
      `SELECT result ->> 'commit' AS commit FROM workspace_ops
        WHERE run_id = $1 AND kind = 'apply' AND status = 'done' AND id <> $2 AND result ->> 'commit' IS NOT NULL
        ORDER BY finished_at DESC LIMIT 1`,
      [run.id, opId],
    )) as { commit: string }[];
    const diff = await workspaceDiff(ws, { maxBytes: MAX_DIFF_BYTES });
    const content = diff.truncated ? `${diff.text}\n[diff cut at ${MAX_DIFF_BYTES} bytes]\n` : diff.text;
    const diffArtifactId = `${opId}-diff`;
    await this.storeArtifacts([{ id: diffArtifactId, runId: run.id, callId: null, kind: 'diff', path: `diffs/${impl.label}.diff`, content }]);
    return {
      workspace_source: ws.source,
      branch: ws.git.branch,
      base_commit: ws.git.baseCommit,
      commit,
      committed,
      diffstat: await workspaceDiffStat(ws),
      round_diffstat: await workspaceDiffStat(ws, { from: previous?.commit ?? ws.git.baseCommit, to: commit }),
      diff_artifact_id: diffArtifactId,
      diff_truncated: diff.truncated,
    };
  }

  /**
   * Reading before writing: the files a role asked for, each read alone so one missing or
   * refused path (outside the workspace, a symlink out, a directory, a binary) is an answer
   * for that path and not a failed request. The orchestrator wraps the contents in evidence
   * blocks; here they are only read, capped at `max_bytes_per_file`.
   */
  read(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'workspace.done', async (run, op) => {
      // Only what the reading needs; the rest of the request (who asked) is checked with the answer.
      const request = ReadOpRequest.pick({ paths: true, max_bytes_per_file: true }).safeParse(op.result);
      if (!request.success) throw new WorkspaceOpRowError(op.id, 'read', `result.${request.error.issues[0].path.join('.')}`, request.error.issues[0].message);
      const ws = await this.workspaceOf(run);
      const files = [];
      for (const p of request.data.paths) files.push(await readOne(ws, p, request.data.max_bytes_per_file ?? 32 * 1024));
      return { ...(op.result ?? {}), files };
    });
  }

  /**
   * Merges the run branch into the original repository (issue 21): only a worktree's branch,
   * only into a repository under the policy's repos.merge_roots, never forced (libs/sandbox's
   * mergeRunBranch refuses a dirty original, a conflict, a target that moved on for ff). A
   * refusal is the op's answer, with the reason: the original is then as it was.
   */
  merge(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'workspace.done', async (_run, op) => {
      const request = workspaceOpRequest('merge', op);
      const refused = (code: string, reason: string) => ({ ...request, merged: false, commit: null, previous: null, reason, code });
      const ws = await openRepoWorkspace(this.workspaceRoot, runId);
      if (!ws) return refused('no_branch', 'the run has no workspace, so there is no run branch to merge');
      if (ws.source !== 'worktree' || !ws.origin) return refused('not_git', `the run worked on a ${ws.source} workspace, not a worktree of a git repository: its branch is offered as it is, never merged`);
      const policy = await this.checks.mergeRefusal(ws.origin, request.approved_by);
      if (policy) return refused('policy', policy);
      const outcome = await mergeRunBranch(ws, { into: request.into, strategy: request.strategy, message: request.message });
      return outcome.merged
        ? { ...request, merged: true, commit: outcome.commit, previous: outcome.previous, reason: null, code: null }
        : refused(outcome.code, outcome.reason);
    });
  }

  /**
   * One turn of an agent-mode engineer's tool loop (issue 21): its tools run here, in order, in
   * the run's own workspace (engineer-tools.ts checks every path; run_tests runs in the sandbox,
   * admitted like any test run, and only where permissions.engineer.run_tests allows it, read
   * again from the run row). After finish, what changed is collected for the Implementation and
   * the staged diff stored as an artifact.
   */
  tool(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'workspace.done', async (run, op) => {
      const request = workspaceOpRequest('tool', op);
      const config = run.config as unknown as ProjectConfig;
      const workspace = await this.workspaceOf(run);
      const runTests = mayRunTests(config, 'engineer') ? (command: string | undefined) => this.toolTestRun(run, workspace, command ?? request.test_command, request.test_timeout_s) : null;
      const agent = config.agents?.engineer?.mode === 'agent';
      const results: ToolResult[] = [];
      for (const call of request.calls.filter((c) => c.name !== 'finish')) {
        results.push(agent ? await runEngineerTool({ workspace, runTests }, call) : { id: call.id, name: call.name, content: 'refused: agents.engineer.mode is not agent', is_error: true });
      }
      const changes = request.collect && agent ? await this.collectChanges(run.id, opId, request.label) : null;
      return { ...request, results, changes };
    });
  }

  private async toolTestRun(run: RunEntity, workspace: string, command: string, timeoutS: number): Promise<ToolTestRun> {
    const outcome = await this.runIn(await this.admittedRunner(run, timeoutS), workspace, command, timeoutS, run.id);
    return { exit_code: outcome.exit_code, passed: outcome.passed, failed: outcome.failed, errors: outcome.errors, timed_out: outcome.timed_out, output: outcome.output };
  }

  /** The run's sandbox as stored, admitted against the policy before anything is touched (a refused run leaves its workspace as it was). */
  private async admittedRunner(run: RunEntity, timeoutS: number): Promise<TestRunner> {
    return this.runners.for(await this.checks.admitTestRun((run.config as unknown as ProjectConfig).sandbox, timeoutS));
  }

  /** `command` in the workspace under `runner`; a run outside the sandbox says so at the end of its output. */
  private async runIn(runner: TestRunner, workspace: string, command: string, timeoutS: number, runId: string, env?: Record<string, string>): Promise<TestRunOutcome> {
    const outcome = await runInSandboxSpan(runner, { workspace, command, timeoutMs: Math.round(timeoutS * 1000), runId, ...(env ? { env } : {}) });
    if (runner.kind === 'process') outcome.output = `${outcome.output.replace(/\n?$/, '\n')}${PROCESS_RUNNER_NOTICE}\n`;
    return outcome;
  }

  /** Artifact rows, once: a repeated job's insert of the same ids changes nothing. */
  private async storeArtifacts(rows: NewArtifact[]): Promise<void> {
    if (!rows.length) return;
    const values = rows.map(({ content, ...r }) => {
      const bytes = typeof content === 'string' ? Buffer.byteLength(content) : content.length;
      return { ...r, sha256: sha256(content), bytes, content: typeof content === 'string' ? content : content.toString('base64') };
    });
    await this.ds.createQueryBuilder().insert().into(ArtifactEntity).values(values as unknown as QueryDeepPartialEntity<ArtifactEntity>[]).orIgnore().execute();
  }


  /** `git add -A && git diff --cached` in the worktree, as a CLI agent's work is taken; null without git. */
  private async collectChanges(runId: string, opId: string, label: string): Promise<ToolOpChanges | null> {
    const ws = await openRepoWorkspace(this.workspaceRoot, runId);
    if (!ws?.git) return null;
    const { files, deleted, notInlined, diffText } = await collectAgentChanges(ws);
    const diffArtifactId = `${opId}-diff`;
    await this.storeArtifacts([{ id: diffArtifactId, runId, callId: null, kind: 'diff', path: `agent/${label}.diff`, content: diffText }]);
    return { files, deleted, not_inlined: notInlined, diff_artifact_id: diffArtifactId };
  }

  /**
   * A run that cannot be merged (a greenfield run, a copy of a plain directory) offers its branch
   * instead (issue 21): libs/sandbox's exportRunBranch writes a git bundle (the whole branch,
   * base commit included) and a `git diff --binary` patch against the base; both are stored as
   * artifacts, base64 (they are bytes), so the api serves them with the workspace gone.
   */
  export(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'workspace.done', async () => {
      const ws = await openRepoWorkspace(this.workspaceRoot, runId);
      const none = (reason: string) => ({ exported: false, reason, branch: null, bundle_artifact_id: null, patch_artifact_id: null });
      if (!ws?.git) return none('the run has no git workspace, so there is no branch to export');
      if (ws.source === 'worktree') return none(`the branch ${ws.git.branch} is in the original repository already`);
      const out = await mkdtemp(path.join(tmpdir(), `rt-export-${runId}-`));
      try {
        const { bundle, patch } = await exportRunBranch(ws, out);
        const name = ws.git.branch.replace(/\//g, '-');
        const [bundleId, patchId] = [`${opId}-bundle`, `${opId}-patch`];
        await this.storeArtifacts([
          { id: bundleId, runId, callId: null, kind: 'bundle', path: `export/${name}.bundle`, content: await readFile(bundle) },
          { id: patchId, runId, callId: null, kind: 'patch', path: `export/${name}.patch`, content: await readFile(patch) },
        ]);
        return { exported: true, reason: null, branch: ws.git.branch, bundle_artifact_id: bundleId, patch_artifact_id: patchId };
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    });
  }

  runTests(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'tests.done', async (run, op) => {
      const { command, timeoutS } = workspaceOpRequest('tests', op);
      // Before the workspace is touched: a refused run leaves it as it was.
      const runner = await this.admittedRunner(run, timeoutS);
      const ws = await this.workspaceOf(run);
      const outcome = await this.runIn(runner, ws, command, timeoutS, runId);
      const artifactId = `${opId}-out`;
      await this.storeArtifacts([{ id: artifactId, runId, callId: null, kind: 'test_output', path: `tests/${opId}.log`, content: outcome.output }]);
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

  /** An experiment's preregistered command (issue 24), run at its pinned commit: experiment-op.ts says how. */
  runExperiment(runId: string, opId: string): Promise<void> {
    return this.perform(runId, opId, 'tests.done', (run, op) => runExperimentOp(this.experimentHost(), run, op));
  }

  /** An eval cell (issue 25) scored once its runs have ended: eval/eval-scorer.ts says how. Not a run's op: nothing is reported back. */
  scoreEvalCell(cellId: string): Promise<void> {
    return scoreEvalCell(
      { ds: this.ds, workspaceRoot: this.workspaceRoot, outputTail: TAIL, admittedRunner: (run, t) => this.admittedRunner(run, t), runIn: (...args) => this.runIn(...args) },
      cellId,
    );
  }

  /** What the experiment op uses of this service. */
  private experimentHost(): ExperimentOpHost {
    return {
      ds: this.ds,
      workspaceRoot: this.workspaceRoot,
      outputTail: TAIL,
      admitRepo: (repo) => this.checks.admitRepo(repo),
      admittedRunner: (run, timeoutS) => this.admittedRunner(run, timeoutS),
      runIn: (...args) => this.runIn(...args),
      storeArtifacts: (rows) => this.storeArtifacts(rows),
    };
  }

  /**
   * The run's workspace: `<WORKSPACE_ROOT>/<runId>/workspace`, made here and nowhere else. The
   * row's workspace_path only says whether it was made: a row pointing elsewhere (written around
   * the orchestrator) would have that directory handed to the sandbox's group, mounted writable
   * in the container, written and read, so it is refused rather than followed.
   */
  private async workspaceOf(run: RunEntity): Promise<string> {
    if (!run.workspacePath) return prepareEmptyWorkspace(this.workspaceRoot, run.id);
    // runDirectory refuses a run id that is not one plain path segment.
    const own = path.join(runDirectory(this.workspaceRoot, run.id), 'workspace');
    if (run.workspacePath !== own) {
      throw new PathEscapeError(run.workspacePath, `is not this run's workspace (${own}); the test-runner works in no other directory`);
    }
    return own;
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
        // Checked before it is written: every reader parses it against the same schema.
        const result = workspaceOpResult(op.kind, opId, await work(run, op));
        await ops.update({ id: opId, status: 'queued' }, { status: 'done', result, finishedAt: new Date() } as never);
      } catch (e) {
        // Anything else (an I/O failure) is ours, and BullMQ retries it.
        if (!RECORDED_FAILURES.some((kind) => e instanceof kind)) throw e;
        await ops.update({ id: opId, status: 'queued' }, { status: 'failed', error: (e as Error).message, finishedAt: new Date() });
      }
    }
    await this.producer.add(doneJob, { runId, opId }, { jobId: jobId(opId, 'done') });
  }
}

/** `I1f1: <the engineer's first line of notes>`; the body says which run and proposal. */
export function commitMessage(runId: string, label: string, body: Pick<Implementation, 'notes' | 'proposal_id' | 'files' | 'deleted'>): string {
  const firstLine = (body.notes ?? '').split('\n')[0].trim();
  const summary = firstLine.length > 72 ? `${firstLine.slice(0, 71)}…` : firstLine || 'files from the engineer';
  const files = body.files.length ? `Files: ${body.files.map((f) => f.path).join(', ')}\n` : '';
  const deleted = body.deleted?.length ? `Deleted: ${body.deleted.join(', ')}\n` : '';
  return `${label}: ${summary}\n\nRoundtable run ${runId}, implementation ${label} of ${body.proposal_id}.\n${files}${deleted}`;
}
