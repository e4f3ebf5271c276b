import { agentJsonSchema, agentModeReportJsonSchema, FileRequestsConfig, type AgentSchemaName, type BuildRole, type Problem } from '@roundtable/contracts';
import { budgetSummary } from '../budget';
import { evidenceBlock } from '../evidence-block';
import { renderTemplate, templatePlaceholders } from '../prompt-render';
import type {
  BuildRunState,
  ChatMessage,
  CritiqueRecord,
  FileReadRecord,
  ImplementationRecord,
  PromptTemplates,
  ProposalRecord,
  TestRunRecord,
} from './build-types';
import { unresolvedCriticisms } from './unresolved-criticisms';

/**
 * What each agent sees, and nothing else (seed §6 "Context packs"). Objective and requirements
 * come from the user and are plain text; everything a model, a test run or the workspace wrote
 * enters only through evidenceBlock().
 */

import type { ContextPack } from '../engine/context-pack';

export type { ContextPack };

export const SCHEMA_BY_ROLE: Readonly<Record<BuildRole, AgentSchemaName>> = {
  proposer: 'Proposal',
  reviser: 'Proposal',
  critic: 'Critique',
  engineer: 'Implementation',
  validator: 'Review',
  synthesizer: 'Synthesis',
};

/** The reply schema while a role may still ask to read files first. */
const OR_FILES_REQUESTED: Readonly<Partial<Record<BuildRole, AgentSchemaName>>> = {
  critic: 'CritiqueOrFilesRequested',
  engineer: 'ImplementationOrFilesRequested',
  validator: 'ReviewOrFilesRequested',
};

const DEFAULT_FILE_REQUESTS = FileRequestsConfig.parse({});

/** The run's reading limits (a run stored before they existed gets the defaults). */
export function fileRequestLimits(state: Pick<BuildRunState, 'config'>): FileRequestsConfig {
  return state.config.file_requests ?? DEFAULT_FILE_REQUESTS;
}

/**
 * Reading before writing (issue 4): on an existing repository (a `repo` was given) the critic,
 * engineer and validator see the file tree and may ask for files before they answer. A
 * greenfield run has nothing to read that the prompts do not already hold.
 */
export function readingOffered(state: Pick<BuildRunState, 'config'>, role: BuildRole): boolean {
  // An engineer in agent mode reads the worktree with its own tools.
  if (role === 'engineer' && engineerInAgentMode(state)) return false;
  return OR_FILES_REQUESTED[role] !== undefined && !!state.config.repo && fileRequestLimits(state).max_rounds > 0;
}

/**
 * Agent mode (seed addendum 2): the engineer is a CLI launched inside the worktree with its
 * own tools; it edits files there and replies with a short report, and the provider-worker
 * turns `git add -A && git diff --cached` into the Implementation the rest of the run sees.
 */
export function engineerInAgentMode(state: Pick<BuildRunState, 'config'>): boolean {
  return state.config.agents.engineer.mode === 'agent';
}

const DELIVER_ANSWER =
  '- `files`: the full content of every file you create or change. Paths are relative to the\n' +
  '  workspace root: no leading `/`, no `..`, no local paths. Files you do not list stay unchanged.\n' +
  '- `deleted` (optional): the paths of files to remove, such as a module your change replaces.';

const DELIVER_AGENT =
  '- You are working inside the workspace (a git worktree of the project on the run branch) with\n' +
  '  your own tools: read, create, edit or delete files there directly, and only there. Do not\n' +
  '  commit, and do not put file contents in your reply: the orchestrator takes your changes from\n' +
  '  `git add -A && git diff --cached` in the worktree once you are done.';

/** The requests already made for answer `label`, oldest first. */
export function fileReadsFor(state: Pick<BuildRunState, 'fileReads'>, label: string): FileReadRecord[] {
  return (state.fileReads ?? []).filter((r) => r.label === label);
}

export function mayRequestFiles(state: BuildRunState, role: BuildRole, label: string): boolean {
  return readingOffered(state, role) && fileReadsFor(state, label).length < fileRequestLimits(state).max_rounds;
}

/** What the reply is validated against: the role's artifact, or the artifact-or-request while requests are left. */
export function replySchemaName(state: BuildRunState, role: BuildRole, label: string): AgentSchemaName {
  return mayRequestFiles(state, role, label) ? OR_FILES_REQUESTED[role]! : SCHEMA_BY_ROLE[role];
}

/**
 * The reading section of a prompt: the requests made so far for this answer, then the files
 * read, then either how to ask for more or that no request is left. Everything a model or the
 * test-runner wrote is in evidence blocks: a request's paths and reason (the model's), what
 * could not be read and why (the test-runner's errors), and each file's content, whose path is
 * only the block's id. Outside the blocks are our words and numbers alone.
 */
function readingText(state: BuildRunState, role: BuildRole, label: string): { text: string; refs: string[] } {
  if (role === 'engineer' && engineerInAgentMode(state)) return { text: '(not needed: you read the workspace with your own tools)', refs: [] };
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

/** The placeholders each pack fills; a prompt template may use any subset of them. */
export const CONTEXT_PLACEHOLDERS: Readonly<Record<keyof PromptTemplates, readonly string[]>> = {
  preamble: ['role'],
  proposer: ['objective', 'requirements', 'lessons', 'proposal_id', 'schema'],
  critic: ['objective', 'requirements', 'proposal', 'proposal_id', 'file_tree', 'reading', 'schema'],
  reviser: ['objective', 'requirements', 'proposal', 'critique', 'proposal_id', 'revision_of', 'schema'],
  engineer: [
    'objective',
    'requirements',
    'proposal',
    'proposal_id',
    'acceptance_criteria',
    'open_criticisms',
    'file_tree',
    'files',
    'previous_attempt',
    'reading',
    'deliver',
    'schema',
  ],
  validator: [
    'objective',
    'requirements',
    'acceptance_criteria',
    'files',
    'diff',
    'test_result',
    'implementation_id',
    'file_tree',
    'reading',
    'schema',
  ],
  synthesizer: [
    'objective',
    'requirements',
    'proposals',
    'critiques',
    'reviews',
    'implementation',
    'test_results',
    'budget',
    'halt',
    'unresolved_criticisms',
    'acceptance_criteria',
    'diff',
    'schema',
  ],
};

/** Placeholders a template uses that its pack never fills: check once at boot, not mid-run. */
export function checkPromptTemplates(templates: PromptTemplates): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(CONTEXT_PLACEHOLDERS) as (keyof PromptTemplates)[]) {
    const template = templates[name];
    if (typeof template !== 'string' || template.trim() === '') {
      problems.push(`prompt ${name} is missing or empty`);
      continue;
    }
    for (const p of templatePlaceholders(template)) {
      if (!CONTEXT_PLACEHOLDERS[name].includes(p)) problems.push(`prompt ${name} uses {{${p}}}, which the ${name} pack does not provide`);
    }
  }
  return problems;
}

export function renderMessages(templates: PromptTemplates, role: BuildRole, values: Record<string, string>): ChatMessage[] {
  return [
    { role: 'system', content: renderTemplate(templates.preamble, { role }) },
    { role: 'user', content: renderTemplate(templates[role], values) },
  ];
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);
// Memoised: converting a zod schema to JSON Schema took about half of decide()'s time on a step
// that builds a call, and the answer depends on the role alone.
const schemaJsonByRole = new Map<BuildRole, string>();
const schemaFor = (role: BuildRole): string => {
  let json = schemaJsonByRole.get(role);
  if (json === undefined) schemaJsonByRole.set(role, (json = JSON.stringify(agentJsonSchema(SCHEMA_BY_ROLE[role]))));
  return json;
};

function requirementsText(state: BuildRunState): string {
  const reqs = state.config.requirements;
  return reqs.length ? reqs.map((r, i) => `${i + 1}. ${r}`).join('\n') : '(none stated)';
}

function criteriaText(state: BuildRunState): string {
  return state.criteria?.length ? state.criteria.map((c) => `${c.id}: ${c.text}`).join('\n') : '(none locked)';
}

function fileTree(state: BuildRunState): string {
  return evidenceBlock('file_tree', 'file_tree', state.workspace.tree.length ? state.workspace.tree.join('\n') : '(empty workspace)');
}

function base(state: BuildRunState): Record<string, string> {
  return { objective: state.config.objective, requirements: requirementsText(state) };
}

/**
 * The latest content of every file the implementations wrote (a fix round returns only the
 * files it changes), in first-written order; a file a later implementation deleted is gone.
 */
export function latestFiles(implementations: readonly ImplementationRecord[]): { path: string; content: string; label: string }[] {
  const files = new Map<string, { path: string; content: string; label: string }>();
  for (const impl of implementations) {
    if (impl.status === 'rejected') continue;
    for (const f of impl.body.files) files.set(f.path, { path: f.path, content: f.content, label: impl.label });
    for (const p of impl.body.deleted ?? []) files.delete(p);
  }
  return [...files.values()];
}

function filesText(implementations: readonly ImplementationRecord[]): { text: string; labels: string[] } {
  const files = latestFiles(implementations);
  return {
    text: files.map((f) => evidenceBlock(f.path, 'file', f.content)).join('\n'),
    labels: [...new Set(files.map((f) => f.label))],
  };
}

/**
 * The latest commit's diff against the base: every round so far, not only the last one's
 * files (a fix round returns only what it changes). A greenfield workspace has nothing to
 * compare against, so the files are the change and the diff would only repeat them.
 */
export function diffText(state: BuildRunState): string {
  const applied = state.implementations.filter((i) => i.status === 'applied' && i.diff);
  const latest = applied[applied.length - 1];
  if (!latest?.diff) return '(no diff: the workspace is not under git)';
  const d = latest.diff;
  if (d.source === 'empty') return '(greenfield workspace: the files above are the whole change)';
  const cut = d.truncated ? `; cut short here, the whole diff is artifact ${d.artifactId}` : '';
  return (
    `Branch ${d.branch}: rounds ${applied.map((i) => i.label).join(', ')} against base ${d.baseCommit.slice(0, 12)}${cut}.\n` +
    evidenceBlock(`${latest.label}.diff`, 'diff', d.text || '(no changes)')
  );
}

export function testResultText(run: TestRunRecord): string {
  const r = run.result;
  return evidenceBlock(
    run.label,
    'test_result',
    [
      `implementation: ${run.implementationLabel}`,
      `command: ${r.command}`,
      `exit_code: ${r.exit_code}`,
      `passed: ${r.passed}`,
      `failed: ${r.failed}`,
      `errors: ${r.errors}`,
      `duration_s: ${r.duration_s}`,
      `timed_out: ${r.timed_out}`,
      'stdout_tail:',
      r.stdout_tail,
    ].join('\n'),
  );
}

/**
 * The critic judges the text, not the author (seed §10 #2): the author's model id is replaced
 * wherever the proposal mentions it. Provider names are left alone; they are ordinary words
 * ("openai", "ollama") a proposal may need, and say less about authorship than a model id.
 */
function redactAuthor(text: string, state: BuildRunState): string {
  let out = text;
  for (const role of ['proposer', 'reviser'] as const) {
    const model = state.config.agents[role].model;
    if (model.length >= 4) out = out.split(new RegExp(model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi')).join('[author redacted]');
  }
  return out;
}

export function proposerPack(state: BuildRunState, proposalLabel: string): ContextPack {
  return {
    values: { ...base(state), lessons: '(none)', proposal_id: proposalLabel, schema: schemaFor('proposer') },
    contextRefs: [],
  };
}

/** `label` is the critique's own (C1 …): the files read so far for it are part of the pack. */
export function criticPack(state: BuildRunState, proposal: ProposalRecord, label = ''): ContextPack {
  const reading = readingText(state, 'critic', label);
  return {
    values: {
      ...base(state),
      proposal: evidenceBlock(proposal.label, 'proposal', redactAuthor(json(proposal.body), state)),
      proposal_id: proposal.label,
      file_tree: fileTree(state),
      reading: reading.text,
      schema: schemaFor('critic'),
    },
    contextRefs: [proposal.label, ...reading.refs],
  };
}

export function reviserPack(state: BuildRunState, proposal: ProposalRecord, critique: CritiqueRecord, newLabel: string): ContextPack {
  return {
    values: {
      ...base(state),
      proposal: evidenceBlock(proposal.label, 'proposal', json(proposal.body)),
      critique: evidenceBlock(critique.label, 'critique', json(critique.body)),
      proposal_id: newLabel,
      revision_of: proposal.label,
      schema: schemaFor('reviser'),
    },
    contextRefs: [proposal.label, critique.label],
  };
}

function openCriticismsText(problems: readonly Problem[], source: string): string {
  return evidenceBlock(source, 'open_criticisms', json(problems));
}

export function engineerPack(state: BuildRunState, proposal: ProposalRecord, label = ''): ContextPack {
  const refs = [proposal.label];
  let openCriticisms = '(none)';
  if (state.unresolved) {
    const last = [...state.critiques].reverse().find((c) => c.targetKind === 'proposal' && c.targetLabel === proposal.label);
    if (last && last.body.problems.length > 0) {
      openCriticisms = openCriticismsText(last.body.problems, last.label);
      refs.push(last.label);
    }
  }
  const reading = readingText(state, 'engineer', label);
  let files = '(none)';
  let previousAttempt = '(first attempt)';
  const lastRun = state.testRuns[state.testRuns.length - 1];
  if (state.fixRound > 0 && state.implementations.length > 0) {
    const own = filesText(state.implementations);
    files = own.text || '(none)';
    refs.push(...own.labels);
    if (lastRun) {
      previousAttempt =
        `Fix round ${state.fixRound} of ${state.config.budget.max_fix_rounds}: implementation ${lastRun.implementationLabel} ` +
        `failed its tests in ${lastRun.label}.\n${testResultText(lastRun)}`;
      refs.push(lastRun.label);
    }
  }
  return {
    values: {
      ...base(state),
      proposal: evidenceBlock(proposal.label, 'proposal', json(proposal.body)),
      proposal_id: proposal.label,
      acceptance_criteria: criteriaText(state),
      open_criticisms: openCriticisms,
      file_tree: fileTree(state),
      files,
      previous_attempt: previousAttempt,
      reading: reading.text,
      deliver: engineerInAgentMode(state) ? DELIVER_AGENT : DELIVER_ANSWER,
      schema: engineerInAgentMode(state) ? JSON.stringify(agentModeReportJsonSchema()) : schemaFor('engineer'),
    },
    contextRefs: [...refs, ...reading.refs],
  };
}

/**
 * The validator checks the artifact, not the argument (seed §6): requirements, criteria, files
 * and the test run only; never a proposal's reasoning, a critic's verdict or a critique's text.
 */
export function validatorPack(state: BuildRunState, implementation: ImplementationRecord, label = ''): ContextPack {
  const files = filesText(state.implementations);
  const lastRun = state.testRuns[state.testRuns.length - 1];
  const reading = readingText(state, 'validator', label);
  return {
    values: {
      ...base(state),
      acceptance_criteria: criteriaText(state),
      files: files.text || '(no files)',
      diff: diffText(state),
      test_result: lastRun ? testResultText(lastRun) : '(the tests were not run)',
      implementation_id: implementation.label,
      file_tree: fileTree(state),
      reading: reading.text,
      schema: schemaFor('validator'),
    },
    contextRefs: [...files.labels, ...(lastRun ? [lastRun.label] : []), ...reading.refs],
  };
}

function implementationText(state: BuildRunState): string {
  const impls = state.implementations;
  if (impls.length === 0) return '(nothing was implemented)';
  const latest = impls[impls.length - 1];
  const earlier = impls.slice(0, -1).map((i) =>
    evidenceBlock(i.label, 'implementation_summary', json({ status: i.status, files: i.body.files.map((f) => f.path), notes: i.body.notes, known_gaps: i.body.known_gaps })),
  );
  const latestBlock = evidenceBlock(latest.label, 'implementation', json({ status: latest.status, apply_error: latest.applyError, ...latest.body }));
  return [...earlier, latestBlock].join('\n');
}

export function synthesizerPack(state: BuildRunState): ContextPack {
  const proposalCritiques = state.critiques.filter((c) => c.targetKind === 'proposal');
  const reviews = state.critiques.filter((c) => c.targetKind === 'implementation');
  const unresolved = unresolvedCriticisms(state);
  const blocks = (records: readonly { label: string; body: unknown }[], type: string, none: string): string =>
    records.length ? records.map((r) => evidenceBlock(r.label, type, json(r.body))).join('\n') : none;
  return {
    values: {
      ...base(state),
      proposals: blocks(state.proposals, 'proposal', '(no proposal was recorded)'),
      critiques: blocks(proposalCritiques, 'critique', '(no critique was recorded)'),
      reviews: blocks(reviews, 'review', '(no review was recorded)'),
      implementation: implementationText(state),
      test_results: state.testRuns.length ? state.testRuns.map(testResultText).join('\n') : '(no tests were run)',
      budget: budgetSummary(state.usage, state.config.budget),
      halt: state.haltReason ?? '(none)',
      unresolved_criticisms: unresolved.length ? evidenceBlock('unresolved', 'unresolved_criticisms', json(unresolved)) : '(none)',
      acceptance_criteria: criteriaText(state),
      diff: diffText(state),
      schema: schemaFor('synthesizer'),
    },
    contextRefs: [
      ...state.proposals.map((p) => p.label),
      ...state.critiques.map((c) => c.label),
      ...state.implementations.map((i) => i.label),
      ...state.testRuns.map((t) => t.label),
    ],
  };
}
