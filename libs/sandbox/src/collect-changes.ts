import type { RepoWorkspace } from './git-workspace';
import { readWorkspaceFiles } from './workspace';
import { stageWorkspaceChanges } from './workspace-commit';

/** A changed file larger than this is not inlined in the Implementation (the commit still has it). */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_DIFF_BYTES = 1024 * 1024;

export interface CollectedChanges {
  /** Added or modified regular text files, with their whole content. */
  files: { path: string; content: string }[];
  deleted: string[];
  /** Changed but not inlinable (binary, over 1 MiB, not a regular file), with why: the commit still has them. */
  notInlined: string[];
  /** `git diff --cached`, cut at 1 MiB (and then saying so). */
  diffText: string;
}

/**
 * What an engineer in agent mode changed in the run's worktree, for its Implementation:
 * `git add -A && git diff --cached`, each added or modified file read back whole. Both agent
 * paths end here: a CLI's own loop (the provider-worker) and the engine's tool loop on an API
 * provider (the test-runner's finish). The index is left staged; the apply step commits it.
 */
export async function collectAgentChanges(ws: RepoWorkspace): Promise<CollectedChanges> {
  const staged = await stageWorkspaceChanges(ws, { maxBytes: MAX_DIFF_BYTES });
  const files: CollectedChanges['files'] = [];
  const deleted: string[] = [];
  const notInlined: string[] = [];
  for (const change of staged.changes) {
    if (change.kind === 'deleted') {
      deleted.push(change.path);
      continue;
    }
    if (change.kind === 'other') {
      notInlined.push(`${change.path} (${change.kind})`);
      continue;
    }
    const [f] = await readWorkspaceFiles(ws.path, [change.path], { maxBytesPerFile: MAX_FILE_BYTES });
    if (f.truncated || f.content.includes('\0')) notInlined.push(`${change.path} (${f.truncated ? 'over 1 MiB' : 'binary'})`);
    else files.push({ path: f.path, content: f.content });
  }
  const diffText = staged.diff.truncated ? `${staged.diff.text}\n[diff cut at ${MAX_DIFF_BYTES} bytes]\n` : staged.diff.text;
  return { files, deleted, notInlined, diffText };
}
