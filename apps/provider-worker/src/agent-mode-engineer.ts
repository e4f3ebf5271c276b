import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { agentModeReportJsonSchema } from '@roundtable/contracts';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { CliUserDecision, Completion, Provider, ProviderRequest } from '@roundtable/providers';
import { ProviderError } from '@roundtable/providers';
import { collectAgentChanges, grantWorkspaceToSandbox, openRepoWorkspace } from '@roundtable/sandbox';

export interface AgentModeCall {
  runId: string;
  callId: string;
  label: string | null;
  /** The request as answer mode would send it; agent mode adds the worktree and its own reply schema. */
  request: ProviderRequest;
}

/**
 * The engineer in agent mode (seed addendum 2, issue 4): the CLI runs inside the run's git
 * worktree with its own tools, edits files there, and replies with a short report (the
 * Implementation without files). Afterwards `git add -A && git diff --cached` says what it
 * did: the changed files become the Implementation's `files` and the removed ones its `deleted`, so validation, the apply step
 * (which commits the round on the run branch), the tests and the reviews work as in answer
 * mode. The staged diff is stored as an artifact of the call.
 *
 * Needs the workspace volume: WORKSPACE_ROOT on this worker is the test-runner's.
 */
export async function runAgentModeEngineer(
  ds: DataSource,
  provider: Provider,
  workspaceRoot: string | undefined,
  call: AgentModeCall,
  cliUser?: CliUserDecision,
): Promise<Completion> {
  if (!workspaceRoot) {
    throw new ProviderError(
      'PROVIDER_ERROR',
      'agents.engineer.mode is agent, but this provider-worker has no WORKSPACE_ROOT: mount the test-runner\'s workspace volume at the same path and set WORKSPACE_ROOT (see the README, "Engineer in agent mode")',
    );
  }
  const ws = await openRepoWorkspace(workspaceRoot, call.runId);
  if (!ws?.git) {
    throw new ProviderError(
      'PROVIDER_ERROR',
      `agent mode needs the run's git worktree under WORKSPACE_ROOT=${workspaceRoot}, and there is none for run ${call.runId} (is the workspace volume mounted here?)`,
    );
  }
  if (cliUser?.ok && cliUser.user.kind === 'run_as') {
    // The CLI runs as the policy's run_as user: it gets the worktree and nothing else. The git
    // directory stays the worker's (every git command names it, never the worktree's .git file).
    await reachableBy(ws.path, cliUser.user, workspaceRoot);
    await grantWorkspaceToSandbox(ws.path, cliUser.user);
  }
  const completion = await provider.run({ ...call.request, workdir: ws.path, schemaName: 'AgentModeReport', jsonSchema: agentModeReportJsonSchema() });

  const { files, deleted, notInlined, diffText } = await collectAgentChanges(ws);
  await ds.query(
    `INSERT INTO artifacts (id, run_id, call_id, kind, path, sha256, bytes, content) VALUES ($1, $2, $3, 'diff', $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [
      `${call.callId}-agent-diff`,
      call.runId,
      call.callId,
      `agent/${call.label ?? call.callId}.diff`,
      createHash('sha256').update(diffText).digest('hex'),
      Buffer.byteLength(diffText),
      diffText,
    ],
  );

  const report = completion.parsed;
  if (report === null || typeof report !== 'object' || Array.isArray(report)) return completion; // the worker's schema check says why
  const r = report as Record<string, unknown>;
  // Binaries and other changes are in the commit (the apply step commits `git add -A`) but cannot be a FileChange: say so.
  const notes = notInlined.length ? `${String(r.notes ?? '')}\n[changed in the worktree, not listed in files: ${notInlined.join(', ')}]`.trim() : r.notes;
  return { ...completion, parsed: { ...r, notes, files, ...(deleted.length ? { deleted } : {}) } };
}

/**
 * Every directory above the worktree must let the CLI's user through (search permission), or
 * it cannot even start there. Said plainly instead of a CLI failing on its cwd; the operator
 * fixes the volume's modes (the worker changes nothing above the run's worktree).
 */
async function reachableBy(dir: string, user: { uid: number; gid: number }, workspaceRoot: string): Promise<void> {
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    const st = await stat(d);
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if (!(st.mode & bit)) {
      throw new ProviderError(
        'PROVIDER_ERROR',
        `agent mode: the CLI runs as uid ${user.uid} (cli.run_as in the operator policy), which cannot enter ${d} (mode ${(st.mode & 0o777).toString(8)}) on the way to the run's worktree under WORKSPACE_ROOT=${workspaceRoot}: make it searchable by that user (e.g. chmod o+x ${d})`,
      );
    }
    if (d === path.dirname(d)) return;
  }
}
