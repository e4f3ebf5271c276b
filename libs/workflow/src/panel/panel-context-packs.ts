import { agentJsonSchemaText, JUDGES, type Idea, type JudgeRole, type PanelRole } from '@roundtable/contracts';
import type { ChatMessage } from '../engine/call-types';
import { budgetSummary } from '../budget';
import type { ContextPack } from '../engine/context-pack';
import { evidenceBlock } from '../evidence-block';
import { memoryText } from '../idea/memory';
import { revoteBlock, turnBlock, verdictBlock } from './panel-evidence';
import { renderTemplate, templatePlaceholders } from '../prompt-render';
import type { JudgeVerdictRecord, PanelCallKind, PanelPromptTemplates, PanelRunState, PanelTemplateName } from './panel-types';
import { SCHEMA_BY_KIND } from './panel-types';

/**
 * What each panel call sees. The idea comes from the user and is plain text; every verdict,
 * debate turn and re-vote a model wrote, and the idea's and an appeal's evidence, enter only through
 * evidenceBlock(), so no judge can write instructions into another judge's prompt.
 */

/** A panel call's context pack is the engine's: the template's values and the rows they came from. */
export type PanelContextPack = ContextPack;

/** Each judge's lens: what it is on the panel to look at, and what it must not drift into. */
export const JUDGE_LENSES: Readonly<Record<JudgeRole, string>> = {
  vc: 'a venture investor: market size and who pays, unit economics (price, CAC, LTV, payback), defensibility, and whether this can become a company rather than a feature',
  engineer: 'the engineer who would build it: feasibility, the hardest component, build and running cost, data, privacy and security, and what the smallest working version needs',
  pm: 'a product manager: the job to be done, the first-use journey and onboarding, the retention loop, MVP scope, and the metric that would prove it works',
  customer: 'the target user in person: whether you have this problem, how you solve it today, what would make you switch, and what you would really pay',
  competitor: 'an incumbent or fast follower: how you would copy, bundle, undercut or out-distribute this, and what would stop you',
};

/** Role-specific nudges for a weak judge's retry (seed 003: "weak panels retry ≤2 times with role-specific nudges"). */
export const JUDGE_NUDGES: Readonly<Record<JudgeRole, string>> = {
  vc: 'Replace stock phrases with numbers: a price point, an acquisition cost, a comparable company and what it earns, a market figure with where it comes from. Each concern must be a different economic risk.',
  engineer: 'Name the component, how it fails and what building or fixing it costs. Cite facts from the idea (platforms, data, integrations); each concern must be a different technical risk.',
  pm: 'Walk one user through the first session and the first week: where do they drop off, and what metric shows it? Each concern must be a different step of the journey.',
  customer: 'Speak as one concrete target user: what you do today, what it costs you, what you would pay. No generalities about "people" or "users"; each concern a different reason you would not switch.',
  competitor: 'Name the incumbent or alternative and the concrete move it would make (copy, bundle, price, distribution). Each concern must be a different competitive threat.',
};

const JUDGE_PLACEHOLDERS: readonly string[] = ['idea', 'judge', 'lens', 'nudge', 'previous_verdict', 'schema'];

/** The placeholders each template may use. */
export const PANEL_PLACEHOLDERS: Readonly<Record<PanelTemplateName, readonly string[]>> = {
  preamble: ['role'],
  ...(Object.fromEntries(JUDGES.map((j) => [j, JUDGE_PLACEHOLDERS])) as Record<JudgeRole, readonly string[]>),
  debate: ['idea', 'judge', 'lens', 'round', 'max_rounds', 'turn_label', 'own_verdict', 'verdicts', 'transcript', 'schema'],
  revote: ['idea', 'judge', 'lens', 'own_verdict', 'previous_score', 'verdicts', 'transcript', 'schema'],
  moderator: ['idea', 'verdicts', 'transcript', 'revotes', 'quality', 'warnings', 'budget', 'halt', 'schema'],
  appeal: ['idea', 'judge', 'lens', 'own_verdict', 'current_score', 'appeal_evidence', 'schema'],
};

/** Placeholders a panel template uses that its pack never fills: check once at boot, not mid-run. */
export function checkPanelTemplates(templates: Partial<PanelPromptTemplates>): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(PANEL_PLACEHOLDERS) as PanelTemplateName[]) {
    const template = templates[name];
    if (typeof template !== 'string' || template.trim() === '') {
      problems.push(`prompt ${name === 'preamble' ? 'preamble' : `panel/${name}`} is missing or empty`);
      continue;
    }
    for (const p of templatePlaceholders(template)) {
      if (!PANEL_PLACEHOLDERS[name].includes(p)) problems.push(`prompt panel/${name} uses {{${p}}}, which the ${name} pack does not provide`);
    }
  }
  return problems;
}

/** The template a call of this kind by this role is rendered from. */
export function templateFor(kind: PanelCallKind, role: PanelRole): PanelTemplateName {
  switch (kind) {
    case 'verdict':
      return role as JudgeRole;
    case 'turn':
      return 'debate';
    case 'revote':
      return 'revote';
    case 'appeal':
      return 'appeal';
    case 'moderator':
      return 'moderator';
  }
}

export function renderPanelMessages(templates: PanelPromptTemplates, role: PanelRole, template: PanelTemplateName, values: Record<string, string>): ChatMessage[] {
  const who = role === 'moderator' ? 'moderator of a five-judge idea panel' : `${role} judge on a five-judge idea panel`;
  return [
    { role: 'system', content: renderTemplate(templates.preamble, { role: who }) },
    { role: 'user', content: renderTemplate(templates[template], values) },
  ];
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);
const schemaFor = (kind: PanelCallKind): string => agentJsonSchemaText(SCHEMA_BY_KIND[kind]);

/** An evidence item's id in the prompt: its own when it starts with one (`[E3] …`, a ledger entry's), else `fallback` (its place). */
export function evidenceIdOf(item: string, fallback: string): string {
  return /^\[([A-Z]{1,4}\d{1,5})\]/.exec(item)?.[1] ?? fallback;
}

/** The ids the idea's evidence blocks carry (IE1 … or the ledger's own), in order: what a verdict may cite. */
export const ideaEvidenceIds = (idea: Idea): string[] => idea.evidence.map((e, i) => evidenceIdOf(e, `IE${i + 1}`));

/** The ids an appeal's evidence blocks carry (E1 … or the ledger's own), in order. */
export const appealEvidenceIds = (evidence: readonly string[]): string[] => evidence.map((e, i) => evidenceIdOf(e, `E${i + 1}`));

/**
 * The idea's title, user and description are the user's question, in plain text. Its evidence
 * items are claims to weigh, like an appeal's, and often pasted from elsewhere (a survey export,
 * a web page): each goes in its own block, so an item cannot end the list and speak as the prompt.
 */
export function ideaText(idea: Idea): string {
  const ids = ideaEvidenceIds(idea);
  const evidence = idea.evidence.length ? idea.evidence.map((e, i) => evidenceBlock(ids[i], 'idea_evidence', e)).join('\n') : '(none given)';
  const memory = memoryText(idea.earlier_panels ?? []).text;
  return [`Title: ${idea.title}`, `Target user: ${idea.target_user}`, '', idea.description, '', 'Evidence the author gives:', evidence, ...(memory ? ['', memory] : [])].join('\n');
}

/** Each judge's latest verdict, in speaker order. */
export function currentVerdicts(state: PanelRunState): JudgeVerdictRecord[] {
  const latest = new Map<JudgeRole, JudgeVerdictRecord>();
  for (const v of state.verdicts) latest.set(v.judge, v);
  return JUDGES.filter((j) => latest.has(j)).map((j) => latest.get(j)!);
}

/** A judge's score now: the last re-vote or appeal if any, else its current verdict's. */
export function currentScore(state: PanelRunState, judge: JudgeRole): number | undefined {
  const rescored = [...state.revotes].reverse().find((r) => r.judge === judge);
  if (rescored) return rescored.score;
  return currentVerdicts(state).find((v) => v.judge === judge)?.body.score;
}

export function currentScores(state: PanelRunState): Partial<Record<JudgeRole, number>> {
  const out: Partial<Record<JudgeRole, number>> = {};
  for (const j of JUDGES) {
    const s = currentScore(state, j);
    if (s !== undefined) out[j] = s;
  }
  return out;
}

function verdictsText(state: PanelRunState): { text: string; refs: string[] } {
  const vs = currentVerdicts(state);
  if (vs.length === 0) return { text: '(no verdict was recorded)', refs: [] };
  return { text: vs.map(verdictBlock).join('\n'), refs: vs.map((v) => v.label) };
}

function ownVerdict(state: PanelRunState, judge: JudgeRole): { text: string; refs: string[] } {
  const v = currentVerdicts(state).find((r) => r.judge === judge);
  return v ? { text: verdictBlock(v), refs: [v.label] } : { text: '(none)', refs: [] };
}

function transcriptText(state: PanelRunState): { text: string; refs: string[] } {
  if (state.turns.length === 0) return { text: '(no one has spoken yet)', refs: [] };
  return {
    text: state.turns.map(turnBlock).join('\n'),
    refs: state.turns.map((t) => t.label),
  };
}

export function judgePack(state: PanelRunState, judge: JudgeRole, nudge: string | null, previous: JudgeVerdictRecord | null): PanelContextPack {
  return {
    values: {
      idea: ideaText(state.config.idea),
      judge,
      lens: JUDGE_LENSES[judge],
      nudge: nudge ?? '(none: this is your first verdict)',
      previous_verdict: previous ? verdictBlock(previous) : '(none)',
      schema: schemaFor('verdict'),
    },
    contextRefs: previous ? [previous.label] : [],
  };
}

export function debatePack(state: PanelRunState, judge: JudgeRole, turnLabel: string): PanelContextPack {
  const own = ownVerdict(state, judge);
  const verdicts = verdictsText(state);
  const transcript = transcriptText(state);
  return {
    values: {
      idea: ideaText(state.config.idea),
      judge,
      lens: JUDGE_LENSES[judge],
      round: String(state.debateRound),
      max_rounds: String(state.config.max_debate_rounds),
      turn_label: turnLabel,
      own_verdict: own.text,
      verdicts: verdicts.text,
      transcript: transcript.text,
      schema: schemaFor('turn'),
    },
    contextRefs: [...verdicts.refs, ...transcript.refs],
  };
}

export function revotePack(state: PanelRunState, judge: JudgeRole, previousScore: number): PanelContextPack {
  const own = ownVerdict(state, judge);
  const verdicts = verdictsText(state);
  const transcript = transcriptText(state);
  return {
    values: {
      idea: ideaText(state.config.idea),
      judge,
      lens: JUDGE_LENSES[judge],
      own_verdict: own.text,
      previous_score: String(previousScore),
      verdicts: verdicts.text,
      transcript: transcript.text,
      schema: schemaFor('revote'),
    },
    contextRefs: [...verdicts.refs, ...transcript.refs],
  };
}

export function appealPack(state: PanelRunState, judge: JudgeRole, currentScoreValue: number, evidence: readonly string[]): PanelContextPack {
  const own = ownVerdict(state, judge);
  return {
    values: {
      idea: ideaText(state.config.idea),
      judge,
      lens: JUDGE_LENSES[judge],
      own_verdict: own.text,
      current_score: String(currentScoreValue),
      appeal_evidence: evidence.map((e, i) => evidenceBlock(appealEvidenceIds(evidence)[i], 'appeal_evidence', e)).join('\n'),
      schema: schemaFor('appeal'),
    },
    contextRefs: own.refs,
  };
}

export function moderatorPack(state: PanelRunState): PanelContextPack {
  const verdicts = verdictsText(state);
  const transcript = transcriptText(state);
  const revotes = state.revotes.filter((r) => r.phase === 'revote');
  const quality = state.quality
    ? evidenceBlock('quality', 'panel_quality', json({ status: state.quality.status, reasons: state.quality.reasons, max_jaccard: state.quality.figures.max_jaccard }))
    : '(not measured)';
  return {
    values: {
      idea: ideaText(state.config.idea),
      verdicts: verdicts.text,
      transcript: transcript.text,
      revotes: revotes.length
        ? revotes.map(revoteBlock).join('\n')
        : '(no re-vote)',
      quality,
      warnings: state.warnings.length ? state.warnings.map((w) => `- ${w.kind}: ${w.detail}`).join('\n') : '(none)',
      budget: budgetSummary(state.usage, state.config.budget),
      halt: state.haltReason ?? '(none)',
      schema: schemaFor('moderator'),
    },
    contextRefs: [...verdicts.refs, ...transcript.refs, ...revotes.map((r) => r.label)],
  };
}
