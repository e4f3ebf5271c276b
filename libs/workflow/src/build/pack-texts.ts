import { agentJsonSchemaText, mayReadWorkspace, TRADING_CHECKLIST, type BuildRole } from '@roundtable/contracts';
import { answersText } from '../engine/answers';
import { evidenceBlock } from '../evidence-block';
import type { BuildRunState, ImplementationRecord, TestRunRecord } from './build-types';
import { artifactSchemaName, noWorkspaceNote } from './file-reading';
import type { PromptTemplates } from './build-types';

/**
 * The texts the context packs are made of: the run's objective, requirements, criteria, file
 * tree, files, diff and test runs as prompt text. Whatever a model, a test run or the workspace
 * wrote is put in an evidence block here, so a pack only arranges them.
 */

export const json = (value: unknown): string => JSON.stringify(value, null, 2);
// Memoised (agentJsonSchemaText): converting a zod schema to JSON Schema took about half of
// decide()'s time on a step that builds a call, and the answer depends on the schema alone (the
// role's, or its trading form).
export const schemaFor = (state: Pick<BuildRunState, 'config'>, role: BuildRole): string => agentJsonSchemaText(artifactSchemaName(state, role));

/**
 * The domain's rules for the proposer, critic and reviser (issue 24): a trading build gets the
 * trading research rules (prompts/experiment/trading_rules.md, the template the experiment
 * workflow uses too); a general build gets nothing (an empty section).
 */
export function domainRules(state: Pick<BuildRunState, 'config'>, templates: Pick<PromptTemplates, 'trading_rules'>, role: BuildRole): string {
  if (state.config.domain !== 'trading') return '';
  const rules = templates.trading_rules.trim();
  return `\n${role === 'critic' ? `${rules}\n\n${CHECKLIST_TEXT}` : rules}\n`;
}

/** The critic's part: the checklist it must fill, item by item (the schema refuses a critique missing one). */
const CHECKLIST_TEXT = [
  'Fill `trading_critique` with every one of these fifteen items, each `{"status": "checked" | "not_applicable" | "problem", "evidence": "..."}`',
  '(`multiple_testing_deflated_sharpe` also gives `n_trials`). A critique missing an item is refused. Mark `problem` where the',
  'proposal gets it wrong, and list a blocking `problem` in `problems` as well.',
  ...TRADING_CHECKLIST.map((i) => `- \`${i.key}\`: ${i.question}`),
].join('\n');

export function requirementsText(state: BuildRunState): string {
  const reqs = state.config.requirements;
  return reqs.length ? reqs.map((r, i) => `${i + 1}. ${r}`).join('\n') : '(none stated)';
}

export function criteriaText(state: BuildRunState): string {
  return state.criteria?.length ? state.criteria.map((c) => `${c.id}: ${c.text}`).join('\n') : '(none locked)';
}

/** The workspace's file tree for `role`'s pack; a role with `workspace: none` is not shown it. */
export function fileTree(state: BuildRunState, role: BuildRole): string {
  if (!mayReadWorkspace(state.config, role)) return `(not shown: ${noWorkspaceNote(role)})`;
  return evidenceBlock('file_tree', 'file_tree', state.workspace.tree.length ? state.workspace.tree.join('\n') : '(empty workspace)');
}

export function base(state: BuildRunState): Record<string, string> {
  return { objective: state.config.objective, requirements: requirementsText(state), answers: answersSection(state) };
}

/**
 * The answers people gave to the run's open questions (issue 21), as a section of its own with
 * each answer in an evidence block marked as a person's; empty (no section) while there are none.
 */
export function answersSection(state: BuildRunState): string {
  const questions = state.openQuestions ?? [];
  if (!questions.some((q) => q.answer)) return '';
  return `\n## Answers from people\nA person answered these open questions of the run; weigh them as a person's decision on the question.\n${answersText(questions)}\n`;
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

export function filesText(implementations: readonly ImplementationRecord[]): { text: string; labels: string[] } {
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
export function redactAuthor(text: string, state: BuildRunState): string {
  let out = text;
  for (const role of ['proposer', 'reviser'] as const) {
    const model = state.config.agents[role].model;
    if (model.length >= 4) out = out.split(new RegExp(model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi')).join('[author redacted]');
  }
  return out;
}
