import { FileRequestsConfig, mayReadWorkspace, type AgentSchemaName, type BuildRole, type ProjectConfig } from '@roundtable/contracts';
import { evidenceBlock } from '../evidence-block';
import type { BuildRunState, FileReadRecord } from './build-types';

/**
 * Reading before writing: which schema a role's reply is held to, whether the role may first
 * ask to read files of the workspace, and the reading section of its prompt. One concept, so
 * the offer, the schema it switches and the prompt that explains it cannot drift apart.
 */

export const SCHEMA_BY_ROLE: Readonly<Record<BuildRole, AgentSchemaName>> = {
  proposer: 'Proposal',
  reviser: 'Proposal',
  critic: 'Critique',
  engineer: 'Implementation',
  validator: 'Review',
  reviewer: 'Review',
  synthesizer: 'Synthesis',
};

/** The reply schema while a role may still ask to read files first. */
const OR_FILES_REQUESTED: Readonly<Partial<Record<BuildRole, AgentSchemaName>>> = {
  critic: 'CritiqueOrFilesRequested',
  engineer: 'ImplementationOrFilesRequested',
  validator: 'ReviewOrFilesRequested',
};

/**
 * A trading build (`domain: trading`, issue 24): every critique carries the fifteen-item
 * checklist, so the critic's reply is held to the critique with its checklist, read or not.
 */
const TRADING_SCHEMA_BY_ROLE: Readonly<Partial<Record<BuildRole, AgentSchemaName>>> = { critic: 'CritiqueWithChecklist' };
const TRADING_OR_FILES_REQUESTED: Readonly<Partial<Record<BuildRole, AgentSchemaName>>> = { critic: 'CritiqueWithChecklistOrFilesRequested' };

function isTrading(state: Pick<BuildRunState, 'config'>): boolean {
  return state.config.domain === 'trading';
}

/** The role's artifact schema in this run: the role's own, or its trading form in a trading build. */
export function artifactSchemaName(state: Pick<BuildRunState, 'config'>, role: BuildRole): AgentSchemaName {
  return (isTrading(state) ? TRADING_SCHEMA_BY_ROLE[role] : undefined) ?? SCHEMA_BY_ROLE[role];
}

const DEFAULT_FILE_REQUESTS = FileRequestsConfig.parse({});

/** The run's reading limits (a run stored before they existed gets the defaults). */
export function fileRequestLimits(state: Pick<BuildRunState, 'config'>): FileRequestsConfig {
  return state.config.file_requests ?? DEFAULT_FILE_REQUESTS;
}

/**
 * Reading before writing (issue 4): on an existing repository (a `repo` was given) the critic,
 * engineer and validator see the file tree and may ask for files before they answer. A
 * greenfield run has nothing to read that the prompts do not already hold, and a role whose
 * permission is `workspace: none` is never offered reading (its requests are refused: file-reads.ts).
 */
export function readingOffered(state: Pick<BuildRunState, 'config'>, role: BuildRole): boolean {
  // An engineer in agent mode reads the worktree with its own tools.
  if (role === 'engineer' && engineerInAgentMode(state)) return false;
  if (!mayReadWorkspace(state.config, role)) return false;
  return OR_FILES_REQUESTED[role] !== undefined && !!state.config.repo && fileRequestLimits(state).max_rounds > 0;
}

/** Why a role with `workspace: none` reads nothing: said in its prompt, and beside any request it made anyway. */
export function noWorkspaceNote(role: BuildRole): string {
  return `the ${role} has no workspace access (permissions.${role}.workspace: none)`;
}

/**
 * Agent mode (seed addendum 2): the engineer is a CLI launched inside the worktree with its
 * own tools; it edits files there and replies with a short report, and the provider-worker
 * turns `git add -A && git diff --cached` into the Implementation the rest of the run sees.
 */
export function engineerInAgentMode(state: Pick<BuildRunState, 'config'>): boolean {
  return state.config.agents.engineer.mode === 'agent';
}

/**
 * Agent mode on an API provider (issue 21): no CLI runs a loop of its own, so the engine runs
 * a tool loop (tool-loop.ts), one recorded call a turn, the tools run by the test-runner.
 */
export function engineerUsesTools(config: Pick<ProjectConfig, 'agents' | 'providers'>): boolean {
  const agent = config.agents.engineer;
  return agent.mode === 'agent' && config.providers[agent.provider]?.type !== 'cli';
}

/** The requests already made for answer `label`, oldest first. */
export function fileReadsFor(state: Pick<BuildRunState, 'fileReads'>, label: string): FileReadRecord[] {
  return (state.fileReads ?? []).filter((r) => r.label === label);
}

export function mayRequestFiles(state: BuildRunState, role: BuildRole, label: string): boolean {
  return readingOffered(state, role) && fileReadsFor(state, label).length < fileRequestLimits(state).max_rounds;
}

/** What the reply is validated against: the role's artifact, or the artifact-or-request while requests are left. */
export function replySchemaName(state: BuildRunState, role: BuildRole, label: string): AgentSchemaName {
  if (!mayRequestFiles(state, role, label)) return artifactSchemaName(state, role);
  return (isTrading(state) ? TRADING_OR_FILES_REQUESTED[role] : undefined) ?? OR_FILES_REQUESTED[role]!;
}

/**
 * The reading section of a prompt: the requests made so far for this answer, then the files
 * read, then either how to ask for more or that no request is left. Everything a model or the
 * test-runner wrote is in evidence blocks: a request's paths and reason (the model's), what
 * could not be read and why (the test-runner's errors), and each file's content, whose path is
 * only the block's id. Outside the blocks are our words and numbers alone.
 */
export function readingText(state: BuildRunState, role: BuildRole, label: string): { text: string; refs: string[] } {
  if (role === 'engineer' && engineerInAgentMode(state)) return { text: '(not needed: you read the workspace with your own tools)', refs: [] };
  if (!mayReadWorkspace(state.config, role)) return refusedReadingText(state, role, label);
  if (OR_FILES_REQUESTED[role] === undefined) return { text: `(not offered: the ${role} answers from what this prompt holds)`, refs: [] };
  if (!readingOffered(state, role)) return { text: '(not offered: this run has no existing repository to read from)', refs: [] };
  const limits = fileRequestLimits(state);
  const reads = fileReadsFor(state, label);
  const parts: string[] = [];
  reads.forEach((r, i) => {
    const n = i + 1;
    const request = [`Request ${n}: ${r.paths.join(', ')}`];
    if (r.reason) request.push(`reason: ${r.reason}`);
    const read: string[] = [];
    for (const f of r.files ?? []) {
      if (f.error !== null || f.content === null) request.push(`- ${f.path}: not read: ${f.error ?? 'no content'}`);
      else {
        const cut = f.truncated ? ` (cut at ${limits.max_bytes_per_file} bytes of ${f.bytes ?? '?'})` : '';
        read.push(`A file read for request ${n}${cut}:\n${evidenceBlock(f.path, 'file', f.content)}`);
      }
    }
    if (r.files === null) request.push('- (the files were not read)');
    if (r.refused.length) request.push(`- not read, over the ${limits.max_files}-file limit per request: ${r.refused.join(', ')}`);
    parts.push(evidenceBlock(label ? `${label}.request${n}` : `request${n}`, 'file_request', request.join('\n')), ...read);
  });
  const left = limits.max_rounds - reads.length;
  parts.push(
    left > 0
      ? `You may read files of the workspace before you answer. To do so, reply with only ` +
          `{"paths": ["relative/path", ...], "reason": "why you need them"} (at most ${limits.max_files} paths, ` +
          `from the file tree above; ${left} request${left === 1 ? '' : 's'} left). The files come back in evidence ` +
          `blocks and you are asked again. When you have what you need, reply with the schema below instead.`
      : `No file requests are left: answer now with the schema below, from what you have read.`,
  );
  return { text: parts.join('\n'), refs: reads.map((r) => r.opId) };
}

/**
 * A role without workspace access is not offered reading; a request it made anyway was refused
 * whole (nothing read), and the prompt that asks again says so, in the request's evidence block.
 */
function refusedReadingText(state: BuildRunState, role: BuildRole, label: string): { text: string; refs: string[] } {
  const reads = fileReadsFor(state, label);
  const parts = reads.map((r, i) =>
    evidenceBlock(label ? `${label}.request${i + 1}` : `request${i + 1}`, 'file_request', [`Request ${i + 1}: ${r.refused.join(', ')}`, `- not read: ${noWorkspaceNote(role)}`].join('\n')),
  );
  parts.push(`(not offered: ${noWorkspaceNote(role)}; answer with the schema below from what this prompt holds)`);
  return { text: parts.join('\n'), refs: reads.map((r) => r.opId) };
}
