export { PathEscapeError } from './path-escape.error';
export { lexicalPathProblem } from './workspace-path';
export { prepareEmptyWorkspace, runDirectory, listFileTree, readWorkspaceFiles, IGNORED_DIRECTORIES } from './workspace';
export type { WorkspaceFileContent } from './workspace';
export { deleteWorkspaceFiles, planWorkspaceDeletions, writeFileChanges } from './safe-write';
export type { DeletionPlan, WorkspaceFileChange, WriteResult } from './safe-write';
export type { TestRunner, TestRunRequest, TestRunOutcome } from './test-runner';
export { ProcessTestRunner } from './process-runner';
export type { ProcessTestRunnerOptions } from './process-runner';
export { sandboxEnv, isSecretEnvName, requestEnv, REQUEST_ENV_NAME, SANDBOX_ENV_ALLOWLIST } from './sandbox-env';
export type { SandboxEnvOptions } from './sandbox-env';
export { parseTestSummary, pytestSummaryParser, TEST_SUMMARY_PARSERS } from './test-output-parser';
export type { TestSummary, TestSummaryParser } from './test-output-parser';
export { tapSummaryParser, jestSummaryParser, mochaSummaryParser } from './js-test-summary.parsers';
export { goTestSummaryParser } from './go-test-summary.parser';
export {
  DockerTestRunner,
  sandboxContainerOptions,
  DEFAULT_SANDBOX_IMAGE,
  DEFAULT_SANDBOX_LIMITS,
  SANDBOX_CONTAINER_ENV,
  SANDBOX_UID,
  SANDBOX_GID,
  SANDBOX_WORKDIR,
} from './docker-runner';
export type { DockerTestRunnerOptions, SandboxLimits, SandboxContainerSpec } from './docker-runner';
export { dockerEndpoint, DEFAULT_DOCKER_SOCKET } from './docker-client';
export type { DockerEndpoint } from './docker-client';
export { reapOrphans, isOrphan } from './orphan-reaper';
export type { ReapOptions } from './orphan-reaper';
export { SANDBOX_LABELS } from './container-labels';
export { SandboxUnavailableError } from './sandbox-unavailable.error';
export { SandboxRefusedError } from './sandbox-refused.error';
export { clearSetIdBits, withSetIdSweepNote } from './setid-bits';
export type { SetIdSweep } from './setid-bits';
export { grantWorkspaceToSandbox } from './workspace-grant';
export { prepareRepoWorkspace, openRepoWorkspace, CACHE_EXCLUDES } from './git-workspace';
export type { RepoWorkspace, WorkspaceGit, WorkspaceSource } from './git-workspace';
export { commitWorkspace, workspaceDiff, workspaceDiffStat, parseNumstat, stageWorkspaceChanges } from './workspace-commit';
export type { DiffStatEntry, StagedChange, StagedChanges, WorkspaceCommit, WorkspaceDiff } from './workspace-commit';
export { GitCommandError, GitUnavailableError, gitEnv } from './git-command';
export { RepoUnusableError } from './repo-unusable.error';
export { mergeRunBranch } from './merge-run-branch';
export type { MergeDone, MergeOutcome, MergeRefusalCode, MergeRefused, MergeRunBranchOptions, MergeStrategy } from './merge-run-branch';
export { exportRunBranch } from './export-run-branch';
export { collectAgentChanges } from './collect-changes';
export type { CollectedChanges } from './collect-changes';
export type { RunBranchExport } from './export-run-branch';
export { prepareCommitWorktree, PinnedCommitMissingError } from './commit-worktree';
