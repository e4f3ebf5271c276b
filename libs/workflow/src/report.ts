import { checklistOf, TRADING_CHECKLIST } from '@roundtable/contracts';
import { solvedChecks, SOLVED_CHECK_TEXT } from './build/solved';
import { questionId } from './engine/answers';
import type { BuildRunState, CritiqueRecord, Decision, DiffStatEntry, TestRunRecord } from './build/build-types';
import { unresolvedCriticisms } from './build/unresolved-criticisms';
import { isSecondReview } from './build/second-review';
import { formatUsd } from './budget';
import { foldRepeatedCriteria } from './repeated-criteria';
import { BUILD_RESUMABLE } from './build/resume';
import type { HandoffSource } from './idea/handoff';

/**
 * The run report (seed §9) as markdown, from the records alone. It states only what the rows
 * say: a missing figure is "n/a", never estimated, and criticisms the debate left open are
 * listed even when the synthesizer forgot them.
 */

export interface ReportAudit {
  calls: number;
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** The sum of the known prices; null when no call had one. */
  costUsd: number | null;
  /** Completed calls with no known price, left out of costUsd (a model missing from the pricing table). */
  unpricedCalls?: number;
  /**
   * The part of costUsd priced for calls on a subscription (billing 'subscription': the CLI providers): what
   * they would have cost at list price (or the CLI's own estimate), not what was paid for them.
   */
  subscriptionCostUsd?: number | null;
  seconds: number | null;
  /** The run's head hash (runs.head_hash, issue 26): the last event of its hash-chained record. Absent or null: no line. */
  headHash?: string | null;
}

export interface BuildReportInput {
  state: BuildRunState;
  decisions: Decision[];
  audit: ReportAudit;
  /** A build handed on from an idea panel (the run row's handed_off_from): the report links back to it. */
  handedOffFrom?: HandoffSource | null;
}

/** The line that links a handed-on build back to the idea version and panel it came from. */
export function handoffLine(from: HandoffSource): string {
  return `Handed on from idea ${from.idea_id} version ${from.version}, panel ${from.panel_run_id} (${from.recommendation}): \`roundtable idea show ${from.idea_id}\`, \`roundtable report ${from.panel_run_id}\`.`;
}

const lines = (xs: string[]): string => xs.join('\n');
const thousands = (n: number): string => n.toLocaleString('en-US');

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function verdictSection(state: BuildRunState, decisions: Decision[]): string[] {
  const body = state.synthesis?.body;
  const out: string[] = [];
  if (body) {
    out.push(`Overall verdict: ${body.overall_verdict} (confidence ${body.confidence})${state.synthesis?.partial ? ' — partial synthesis after a halt' : ''}`);
  } else {
    const why =
      [...decisions].reverse().find((d) => d.reason.startsWith('fact-only report:'))?.reason.replace(/^fact-only report:\s*/, '') ??
      (state.synthesis ? state.haltReason : null) ??
      `the run ended with status ${state.status} before a synthesis was written`;
    out.push(`Overall verdict: none — no synthesis: fact-only report (${why})`);
  }
  out.push(`Status: ${state.status} (stage ${state.stage})`);
  if (state.haltReason) out.push(`Halt reason: ${state.haltReason}`);
  out.push(...haltLines(state.runId, state.status, decisions, BUILD_RESUMABLE));
  return out;
}

/**
 * A run its workflow may resume (`resumable`: the statuses the api accepts a resume on, the
 * module's) says how to go on; a run that was halted and resumed lists its halts (each decision
 * into HALTED), which the final status no longer shows. Shared with the panel report.
 */
export function haltLines(runId: string, status: string, decisions: readonly { from: string; to: string; reason: string }[], resumable: readonly string[] = ['halted']): string[] {
  const out: string[] = [];
  const halts = decisions.filter((d) => d.to === 'HALTED');
  if (status === 'halted' && resumable.includes(status)) {
    out.push(`Resume: \`roundtable resume ${runId}\` (POST /v1/runs/${runId}/resume), raising the cap that stopped it with e.g. \`--max-calls N\`; recorded work is reused, not re-billed.`);
  } else if (resumable.includes(status)) {
    out.push(`Resume: \`roundtable resume ${runId}\` (POST /v1/runs/${runId}/resume) once what stopped it is dealt with, or from a stage with \`--from STAGE\`; recorded work is reused, not re-billed.`);
  }
  const earlier = status === 'halted' ? halts.slice(0, -1) : halts;
  if (earlier.length) {
    out.push(`Resumed after ${plural(earlier.length, 'halt')}:`);
    for (const h of earlier) out.push(`- at ${h.from}: ${h.reason}`);
  }
  return out;
}

function builtSection(state: BuildRunState): string[] {
  const out = ['## What was built'];
  if (state.synthesis?.body?.what_was_built) out.push(state.synthesis.body.what_was_built, '');
  if (state.implementations.length === 0) {
    out.push('Nothing was implemented.');
    return out;
  }
  for (const impl of state.implementations) {
    const files = impl.body.files.map((f) => `${f.path} (${plural(lineCount(f.content), 'line')})`);
    const fix = impl.fixRound > 0 ? `, fix round ${impl.fixRound}` : '';
    const applied = impl.status === 'rejected' ? `rejected: ${impl.applyError ?? 'no reason recorded'}` : impl.status;
    out.push(`- ${impl.label} (${applied}${fix}) for ${impl.proposalLabel ?? 'the objective and requirements (solo)'}: ${files.join(', ')}`);
    if (impl.body.notes) out.push(`  notes: ${impl.body.notes}`);
    for (const gap of impl.body.known_gaps) out.push(`  known gap: ${gap}`);
  }
  return out;
}

function statText(stat: readonly DiffStatEntry[]): string {
  if (stat.length === 0) return 'no changes';
  return stat.map((f) => (f.added === null ? `${f.path} (binary)` : `${f.path} +${f.added} −${f.deleted}`)).join(', ');
}

const SOURCE_TEXT = { worktree: 'a git worktree of', copy: 'a copy of', empty: "the run's own repository (greenfield)" } as const;

/** Per implementation the commit its round made on the run branch, then every round against the base. */
function diffSection(state: BuildRunState): string[] {
  const committed = state.implementations.filter((i) => i.diff);
  const latest = committed[committed.length - 1]?.diff;
  if (!latest) return [];
  const origin = latest.source === 'empty' ? SOURCE_TEXT.empty : `${SOURCE_TEXT[latest.source]} ${state.config.repo ?? 'the project directory'}`;
  // Where the branch lives: the run's checkout (a worktree's branch is in the repository too).
  const at = state.workspace.path ? ` (checked out at ${state.workspace.path})` : '';
  const out = ['## Diff', `Branch ${latest.branch} in ${origin}${at}, from base ${latest.baseCommit.slice(0, 12)}.`];
  for (const impl of committed) out.push(`- ${impl.label} → ${impl.diff!.commit.slice(0, 12)}: ${statText(impl.diff!.roundDiffstat)}`);
  const added = latest.diffstat.reduce((n, f) => n + (f.added ?? 0), 0);
  const deleted = latest.diffstat.reduce((n, f) => n + (f.deleted ?? 0), 0);
  out.push(`All rounds against the base: ${plural(latest.diffstat.length, 'file')}, +${added} −${deleted} (${statText(latest.diffstat)}).`);
  if (latest.source === 'worktree' && state.config.repo) {
    const repo = state.config.repo;
    out.push(
      `Inspect: \`git -C ${repo} diff ${latest.baseCommit.slice(0, 12)}..${latest.branch}\`. ` +
        `Clean up: \`git -C ${repo} worktree remove --force ${state.workspace.path ?? '<workspace>'}\` and \`git -C ${repo} branch -D ${latest.branch}\`.`,
    );
  }
  return out;
}

function testLine(run: TestRunRecord, state: BuildRunState): string {
  const r = run.result;
  const impl = state.implementations.find((i) => i.label === run.implementationLabel);
  const fix = impl && impl.fixRound > 0 ? ` (fix round ${impl.fixRound})` : '';
  const outcome = r.exit_code === 0 ? 'pass' : r.timed_out ? 'timed out' : 'FAIL';
  return `- ${run.label} on ${run.implementationLabel}${fix}: \`${r.command}\` → exit ${r.exit_code}, ${r.passed} passed, ${r.failed} failed, ${r.errors} errors, ${r.duration_s} s — ${outcome}`;
}

function testSection(state: BuildRunState): string[] {
  const out = ['## Test results'];
  if (state.testRuns.length === 0) out.push('No tests were run.');
  else out.push(...state.testRuns.map((t) => testLine(t, state)));
  out.push(`Fix rounds used: ${state.fixRound} of ${state.config.budget.max_fix_rounds}.`);
  if (state.synthesis?.body?.test_summary) out.push('', state.synthesis.body.test_summary);
  return out;
}

function reviewSection(state: BuildRunState): string[] {
  return reviewLines('## Review', state.critiques.filter((c) => c.targetKind === 'implementation' && !isSecondReview(c)));
}

/** The reviewer's second opinion (agents.reviewer): listed apart, since it never changed the run's course. */
function secondReviewSection(state: BuildRunState): string[] {
  const reviews = state.critiques.filter(isSecondReview);
  if (reviews.length === 0) return state.config.agents.reviewer && state.implementations.length ? ['## Second review', 'No second review was recorded.'] : [];
  const [heading, ...rest] = reviewLines('## Second review', reviews);
  return [heading, "By the reviewer, on the same artifact as the validator: an opinion for the synthesis, which never changed the run's course.", ...rest];
}

function reviewLines(heading: string, reviews: readonly CritiqueRecord[]): string[] {
  if (reviews.length === 0) return [];
  const out = [heading];
  for (const r of reviews) {
    const body = r.body as { requirement_checks?: { requirement: string; satisfied: boolean; evidence: string }[]; problems: { severity: string; description: string }[]; confidence: number };
    out.push(`${r.label} on ${r.targetLabel} → ${r.verdict} (confidence ${body.confidence})`);
    for (const c of body.requirement_checks ?? []) out.push(`- ${c.satisfied ? '✓' : '✗'} ${c.requirement} — ${c.evidence}`);
    for (const p of body.problems) out.push(`- ${p.severity}: ${p.description}`);
  }
  return out;
}

const oneLine = (text: string, max = 240): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * A trading build's checklists (issue 24): for each critique that carries one, the items its
 * critic marked `problem`, one line each with the evidence; the rest are counted, not listed.
 */
function checklistSection(state: BuildRunState): string[] {
  const out: string[] = [];
  for (const c of state.critiques) {
    const checklist = checklistOf(c.body);
    if (!checklist) continue;
    const problems = TRADING_CHECKLIST.filter((i) => checklist[i.key]?.status === 'problem');
    out.push(`${c.label} on ${c.targetLabel}: ${problems.length} of ${TRADING_CHECKLIST.length} items marked problem`);
    for (const i of problems) out.push(`- ${i.key}: ${oneLine(checklist[i.key].evidence)}`);
  }
  return out.length ? ['## Trading checklist', ...out] : [];
}

function disagreementSection(state: BuildRunState): string[] {
  const out = ['## Disagreements'];
  const fromSynthesis = state.synthesis?.body?.disagreements ?? [];
  fromSynthesis.forEach((d, i) => {
    out.push(`${i + 1}. ${d.topic} — ${d.resolved ? `resolved${d.resolution ? `: ${d.resolution}` : ''}` : 'UNRESOLVED'}`);
    for (const p of d.positions) out.push(`   - ${p.agent_role}: ${p.position}`);
  });
  if (fromSynthesis.length === 0) out.push(state.synthesis?.body ? 'The synthesis lists none.' : 'No synthesis was written.');
  // Seed §6: every criticism the reviser rejected or deferred stays on the record as unresolved.
  const open = unresolvedCriticisms(state);
  if (open.length > 0) {
    out.push('', 'Unresolved criticisms (from the records, whatever the synthesis says):');
    for (const u of open) out.push(`- ${u.source} ${u.action}: ${u.problem}${u.reason ? ` — ${u.reason}` : ''}`);
  }
  return out;
}

function questionsSection(state: BuildRunState): string[] {
  const out = ['## Open questions and criteria'];
  const questions = state.openQuestions ?? [];
  if (questions.length === 0) out.push('Open questions: none.');
  else questions.forEach((q, i) => out.push(`- ${questionId(i)} (${q.role}) ${q.question}${q.answer ? ' [answered]' : ''}`));
  if (state.criteria?.length) {
    out.push(`Acceptance criteria${state.unresolved ? ' (locked at the round limit with open criticisms)' : ''}:`);
    for (const c of foldRepeatedCriteria(state.criteria)) out.push(`- ${c.id}: ${c.text}${c.repeatedBy.length ? ` (restated as ${c.repeatedBy.join(', ')})` : ''}`);
  } else {
    out.push('Acceptance criteria: none locked.');
  }
  return out;
}

/** Gates, answers and the merge: what people decided, in their words, and what became of the branch (issue 21). */
function peopleSection(state: BuildRunState): string[] {
  const approvals = state.approvals ?? [];
  const answered = (state.openQuestions ?? []).map((q, i) => ({ q, id: questionId(i) })).filter(({ q }) => q.answer);
  const gated = state.config.approvals?.length || state.config.merge;
  if (!approvals.length && !answered.length && !state.merge && !gated) return [];
  const out = ['## People in the loop'];
  for (const a of approvals) {
    out.push(`- ${a.gate} gate: ${a.decision === 'approve' ? 'approved' : 'refused'} by ${a.approver}${a.note ? ` — "${a.note}"` : ''}`);
    for (const r of a.edits?.reworded ?? []) out.push(`  - reworded ${r.id}: "${r.from}" → "${r.to}"`);
    for (const c of a.edits?.added ?? []) out.push(`  - added ${c.id}: "${c.text}"`);
    for (const c of a.edits?.dropped ?? []) out.push(`  - dropped ${c.id}: "${c.text}"`);
  }
  for (const { q, id } of answered) out.push(`- ${id} answered by ${q.answer!.by}: "${q.answer!.text}" (to: ${q.question})`);
  const m = state.merge;
  if (m) out.push(m.merged ? `- Merged into ${m.into} (${m.strategy}) at ${m.commit?.slice(0, 12)}, from ${m.previous?.slice(0, 12)}.` : `- Not merged (${m.code}): ${m.reason}`);
  else if (state.config.merge) out.push(`- Not merged into ${state.config.merge.into}.`);
  const checks = solvedChecks(state);
  out.push(`"Solved": ${checks.filter((c) => c.ok).length} of 4 checks hold.`);
  for (const c of checks) out.push(`- [${c.ok ? 'x' : ' '}] ${SOLVED_CHECK_TEXT[c.check]}: ${c.evidence}`);
  return out;
}

function risksSection(state: BuildRunState): string[] {
  const out = ['## Remaining risks'];
  const body = state.synthesis?.body;
  if (body) {
    out.push(...(body.remaining_risks.length ? body.remaining_risks.map((r) => `- ${r}`) : ['None listed by the synthesis.']));
    return out;
  }
  // No synthesis: list what the records themselves flag, without judging it.
  const facts = [
    ...state.implementations.flatMap((i) => i.body.known_gaps.map((g) => `${i.label} known gap: ${g}`)),
    ...state.critiques.filter((c) => c.targetKind === 'implementation').flatMap((c) => c.body.problems.map((p) => `${c.label} ${p.severity}: ${p.description}`)),
  ];
  out.push(...(facts.length ? facts.map((f) => `- ${f}`) : ['Not assessed: no synthesis was written.']));
  return out;
}

/** Paid per call, apart from what the subscription calls would have cost at list price. */
function costText(costUsd: number, subscriptionUsd: number | null): string {
  if (!subscriptionUsd) return formatUsd(costUsd);
  const paid = Math.max(0, Math.round((costUsd - subscriptionUsd) * 1e6) / 1e6);
  return `${formatUsd(paid)} billed per call, ${formatUsd(subscriptionUsd)} at list price on subscriptions (not billed per call)`;
}

/** The audit's first sentence, shared by the build and panel reports: calls, tokens, cost, time. */
export function auditFigures(audit: ReportAudit): string {
  // The known sum and how many calls it leaves out: one unpriced model must not hide what the others cost.
  const unpriced = audit.unpricedCalls ? plural(audit.unpricedCalls, 'call') + ' unpriced' : null;
  const cost =
    audit.costUsd === null ? `cost n/a${unpriced ? ` (${unpriced})` : ''}` : `cost ${costText(audit.costUsd, audit.subscriptionCostUsd ?? null)}${unpriced ? ` + ${unpriced}` : ''}`;
  const seconds = audit.seconds === null ? 'n/a' : `${Math.round(audit.seconds)} s`;
  const failed = audit.failedCalls > 0 ? ` (${audit.failedCalls} failed)` : '';
  const tokens = audit.inputTokens + audit.outputTokens;
  return `${plural(audit.calls, 'agent call')}${failed}, ${thousands(tokens)} tokens (in ${thousands(audit.inputTokens)} / out ${thousands(audit.outputTokens)}), ${cost}, ${seconds}`;
}

/** The audit's record line, shared by every report: the head hash of the run's hash chain and how to check it. */
export function recordLine(runId: string, audit: ReportAudit): string[] {
  return audit.headHash ? [`Record head hash \`${audit.headHash}\`: \`roundtable verify ${runId}\` recomputes the chain.`] : [];
}

function auditSection(state: BuildRunState, audit: ReportAudit): string[] {
  return [
    '## Audit',
    `${auditFigures(audit)}.`,
    ...filesReadLines(state),
    `\`roundtable calls ${state.runId}\` for prompts, responses, tokens, cost.`,
    ...recordLine(state.runId, audit),
  ];
}

/** Reading before writing: which answer read which files (what each agent's judgement rested on). */
function filesReadLines(state: BuildRunState): string[] {
  const reads = state.fileReads ?? [];
  if (reads.length === 0) return [];
  return [
    'Files read before answering:',
    ...reads.map((r) => {
      const files = (r.files ?? []).map((f) => (f.error === null ? f.path : `${f.path} (${f.error})`));
      return `- ${r.label} (${r.role}): ${r.files === null ? `${r.paths.join(', ')} (not read)` : files.join(', ')}`;
    }),
  ];
}

export function renderBuildReport(input: BuildReportInput): string {
  const { state, decisions, audit, handedOffFrom } = input;
  const body = state.synthesis?.body;
  const sections: string[][] = [
    [`# ${state.config.project} — run ${state.runId}`, '', ...(handedOffFrom ? [handoffLine(handedOffFrom), ''] : []), ...verdictSection(state, decisions)],
    builtSection(state),
    diffSection(state),
    testSection(state),
    reviewSection(state),
    secondReviewSection(state),
    checklistSection(state),
    disagreementSection(state),
    questionsSection(state),
    peopleSection(state),
    risksSection(state),
    ['## Recommended next experiment', body?.recommended_next_experiment || '(none)'],
    auditSection(state, audit),
  ];
  return `${sections
    .filter((s) => s.length > 0)
    .map(lines)
    .join('\n\n')}\n`;
}
