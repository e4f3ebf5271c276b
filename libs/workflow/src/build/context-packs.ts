import { agentModeReportJsonSchema, type Problem } from '@roundtable/contracts';
import { isSecondReview } from './second-review';
import { budgetSummary } from '../budget';
import { evidenceBlock } from '../evidence-block';
import type { BuildRunState, CritiqueRecord, ImplementationRecord, ProposalRecord } from './build-types';
import { engineerInAgentMode, engineerUsesTools, readingText } from './file-reading';
import { base, criteriaText, diffText, filesText, fileTree, json, redactAuthor, schemaFor, testResultText } from './pack-texts';
import { unresolvedCriticisms } from './unresolved-criticisms';

/**
 * What each agent sees, and nothing else (seed §6 "Context packs"). Objective and requirements
 * come from the user and are plain text; everything a model, a test run or the workspace wrote
 * enters only through evidenceBlock().
 */

import type { ContextPack } from '../engine/context-pack';

export type { ContextPack };

// The build's prompt machinery, one concept a file; re-exported here so importers of
// context-packs (and the library's index) keep their names.
export { engineerInAgentMode, fileReadsFor, fileRequestLimits, mayRequestFiles, readingOffered, replySchemaName, SCHEMA_BY_ROLE } from './file-reading';
export { checkPromptTemplates, CONTEXT_PLACEHOLDERS, renderMessages } from './prompt-placeholders';
export { diffText, latestFiles, testResultText } from './pack-texts';

const DELIVER_ANSWER =
  '- `files`: the full content of every file you create or change. Paths are relative to the\n' +
  '  workspace root: no leading `/`, no `..`, no local paths. Files you do not list stay unchanged.\n' +
  '- `deleted` (optional): the paths of files to remove, such as a module your change replaces.';

const DELIVER_AGENT =
  '- You are working inside the workspace (a git worktree of the project on the run branch) with\n' +
  '  your own tools: read, create, edit or delete files there directly, and only there. Do not\n' +
  '  commit, and do not put file contents in your reply: the orchestrator takes your changes from\n' +
  '  `git add -A && git diff --cached` in the worktree once you are done.';

const DELIVER_TOOLS =
  '- You work on the workspace (a git worktree of the project on the run branch) through your tools:\n' +
  '  list_files, read_file, write_file (the whole new content), delete_file, and run_tests where you\n' +
  '  are allowed to run them. Paths are relative to the workspace root. Read before you change a file.\n' +
  '  When the workspace holds the implementation and its tests, call finish once with your report\n' +
  '  (the reply schema below is its arguments); do not put file contents in the report: the\n' +
  '  orchestrator takes your changes from `git add -A && git diff --cached` in the worktree.';

export function proposerPack(state: BuildRunState, proposalLabel: string): ContextPack {
  return {
    values: { ...base(state), lessons: '(none)', proposal_id: proposalLabel, schema: schemaFor(state, 'proposer') },
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
      file_tree: fileTree(state, 'critic'),
      reading: reading.text,
      schema: schemaFor(state, 'critic'),
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
      schema: schemaFor(state, 'reviser'),
    },
    contextRefs: [proposal.label, critique.label],
  };
}

function openCriticismsText(problems: readonly Problem[], source: string): string {
  return evidenceBlock(source, 'open_criticisms', json(problems));
}

/**
 * What a solo run's engineer gets where the team's gets the accepted proposal (issue 25): no
 * proposal was written, the objective and requirements above are the plan, and the criteria are
 * the requirements. `proposal_id` is what its implementation names instead of a proposal label.
 */
export const SOLO_PLAN_ID = 'objective';
const SOLO_PLAN_TEXT =
  '(none: this run has no debate (pipeline: solo). Work from the objective and the requirements above; ' +
  'the acceptance criteria below are those requirements.)';

/** `proposal`: the one to implement; null in a solo run (solo.ts), where the objective and requirements are the plan. */
export function engineerPack(state: BuildRunState, proposal: ProposalRecord | null, label = ''): ContextPack {
  const refs = proposal ? [proposal.label] : [];
  let openCriticisms = '(none)';
  if (state.unresolved && proposal) {
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
      proposal: proposal ? evidenceBlock(proposal.label, 'proposal', json(proposal.body)) : SOLO_PLAN_TEXT,
      proposal_id: proposal?.label ?? SOLO_PLAN_ID,
      acceptance_criteria: criteriaText(state),
      open_criticisms: openCriticisms,
      file_tree: fileTree(state, 'engineer'),
      files,
      previous_attempt: previousAttempt,
      reading: reading.text,
      deliver: engineerUsesTools(state.config) ? DELIVER_TOOLS : engineerInAgentMode(state) ? DELIVER_AGENT : DELIVER_ANSWER,
      schema: engineerInAgentMode(state) ? JSON.stringify(agentModeReportJsonSchema()) : schemaFor(state, 'engineer'),
    },
    contextRefs: [...refs, ...reading.refs],
  };
}

/**
 * The validator checks the artifact, not the argument (seed §6): requirements, criteria, files
 * and the test run only; never a proposal's reasoning, a critic's verdict or a critique's text.
 * The reviewer's second review gets the same pack (`role` reviewer: its own permission decides
 * the file tree, and it is offered no reading), and nothing of the validator's review either.
 */
export function validatorPack(state: BuildRunState, implementation: ImplementationRecord, label = '', role: 'validator' | 'reviewer' = 'validator'): ContextPack {
  const files = filesText(state.implementations);
  const lastRun = state.testRuns[state.testRuns.length - 1];
  const reading = readingText(state, role, label);
  return {
    values: {
      ...base(state),
      acceptance_criteria: criteriaText(state),
      files: files.text || '(no files)',
      diff: diffText(state),
      test_result: lastRun ? testResultText(lastRun) : '(the tests were not run)',
      implementation_id: implementation.label,
      file_tree: fileTree(state, role),
      reading: reading.text,
      schema: schemaFor(state, role),
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
  const reviews = state.critiques.filter((c) => c.targetKind === 'implementation' && !isSecondReview(c));
  const secondReviews = state.critiques.filter(isSecondReview);
  const unresolved = unresolvedCriticisms(state);
  const blocks = (records: readonly { label: string; body: unknown }[], type: string, none: string): string =>
    records.length ? records.map((r) => evidenceBlock(r.label, type, json(r.body))).join('\n') : none;
  return {
    values: {
      ...base(state),
      proposals: blocks(state.proposals, 'proposal', '(no proposal was recorded)'),
      critiques: blocks(proposalCritiques, 'critique', '(no critique was recorded)'),
      reviews: blocks(reviews, 'review', '(no review was recorded)'),
      // The reviewer's second opinion, apart from the validator's so the synthesizer can weigh the two.
      second_reviews: blocks(secondReviews, 'second_review', state.config.agents.reviewer ? '(no second review was recorded)' : '(no reviewer in this run)'),
      implementation: implementationText(state),
      test_results: state.testRuns.length ? state.testRuns.map(testResultText).join('\n') : '(no tests were run)',
      budget: budgetSummary(state.usage, state.config.budget),
      halt: state.haltReason ?? '(none)',
      unresolved_criticisms: unresolved.length ? evidenceBlock('unresolved', 'unresolved_criticisms', json(unresolved)) : '(none)',
      acceptance_criteria: criteriaText(state),
      diff: diffText(state),
      schema: schemaFor(state, 'synthesizer'),
    },
    contextRefs: [
      ...state.proposals.map((p) => p.label),
      ...state.critiques.map((c) => c.label),
      ...state.implementations.map((i) => i.label),
      ...state.testRuns.map((t) => t.label),
    ],
  };
}
