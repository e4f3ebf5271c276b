import { JUDGES, type JudgeRole } from '@roundtable/contracts';
import { auditFigures, haltLines, recordLine, type ReportAudit } from '../report';
import { PANEL_RESUMABLE } from './resume';
import { currentVerdicts } from './panel-context-packs';
import type { PanelDecision, PanelRunState, RevoteRecord } from './panel-types';

/**
 * The report of a panel run as markdown, from the run's records alone (the twin of the build's
 * report): the recommendation and what it rests on, each judge's score before and after the
 * re-vote with the reason it moved, the debate, the quality figures and warnings, the appeal,
 * and the audit line. A missing figure is "n/a", never estimated.
 */

export interface PanelReportInput {
  state: PanelRunState;
  decisions: PanelDecision[];
  audit: ReportAudit;
}

const MESSAGE_CHARS = 240;
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();
const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);
const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));
const bullets = (xs: readonly string[], none: string): string[] => (xs.length ? xs.map((x) => `- ${x}`) : [none]);

function recommendationSection(state: PanelRunState, decisions: PanelDecision[]): string[] {
  const m = state.moderator;
  const out: string[] = [];
  if (m?.body) {
    out.push(`Recommendation: ${m.body.overall_recommendation} (confidence ${m.body.confidence})${m.partial ? ' — partial synthesis after a halt' : ''}`);
  } else {
    const why =
      [...decisions].reverse().find((d) => d.reason.startsWith('fact-only close:'))?.reason.replace(/^fact-only close:\s*/, '') ??
      state.haltReason ??
      `the run ended with status ${state.status} before the moderator wrote a synthesis`;
    out.push(`Recommendation: none — no synthesis (${why})`);
  }
  out.push(`Status: ${state.status} (stage ${state.stage})`);
  if (state.haltReason) out.push(`Halt reason: ${state.haltReason}`);
  out.push(...haltLines(state.runId, state.status, decisions, PANEL_RESUMABLE));
  if (state.lowConfidence) out.push('Low confidence: the panel was uniform (one stance, scores within a point), so agreement here is a weak signal.');
  return out;
}

function ideaSection(state: PanelRunState): string[] {
  const idea = state.config.idea;
  return [
    '## The idea',
    `${idea.title} — for ${idea.target_user}`,
    '',
    oneLine(idea.description),
    ...(idea.evidence.length ? ['', 'Evidence given:', ...idea.evidence.map((e) => `- ${e}`)] : []),
  ];
}

function judgeLine(state: PanelRunState, judge: JudgeRole): string[] {
  const verdict = currentVerdicts(state).find((v) => v.judge === judge);
  if (!verdict) return [`- ${judge}: no verdict recorded`];
  const v = verdict.body;
  const revote = state.revotes.find((r) => r.phase === 'revote' && r.judge === judge);
  let score = `${v.score}/10 (${v.stance})`;
  if (revote) {
    const moved = revote.score !== revote.previous;
    score += moved ? ` → ${revote.score} after the re-vote (${signed(revote.score - revote.previous)})` : ' → unchanged after the re-vote';
    if (revote.capped) score += `, asked for ${revote.requested} and capped`;
  }
  const out = [`- ${judge} (${verdict.label}, ${agentName(state, judge)}): ${score}`];
  if (revote && revote.score !== revote.previous && revote.body.change_reason) out.push(`  why it moved: ${oneLine(revote.body.change_reason)}`);
  out.push(`  concerns: ${v.top_concerns.map(oneLine).join('; ')}`);
  out.push(`  would change its mind: ${oneLine(v.what_would_change_my_mind)}`);
  return out;
}

function agentName(state: PanelRunState, role: JudgeRole | 'moderator'): string {
  const a = role === 'moderator' ? state.config.moderator : state.config.judges[role];
  return `${a.provider}/${a.model}`;
}

function judgesSection(state: PanelRunState): string[] {
  const out = ['## Judges'];
  const retries = state.roastRetries ? ` (${plural(state.roastRetries, 'retry')} of weak judges)` : '';
  out.push(`Scores before → after the re-vote${state.config.revote ? '' : ' (re-vote off)'}${retries}:`);
  for (const j of JUDGES) out.push(...judgeLine(state, j));
  return out;
}

function debateSection(state: PanelRunState): string[] {
  const out = ['## Debate'];
  const rounds = new Set(state.turns.map((t) => t.round)).size;
  if (state.turns.length === 0) {
    out.push(state.config.max_debate_rounds === 0 ? 'No debate: max_debate_rounds is 0.' : 'No debate took place.');
    return out;
  }
  out.push(`${plural(state.turns.length, 'message')} in ${plural(rounds, 'round')} of ${state.config.max_debate_rounds}, in fixed order (vc → engineer → pm → customer → competitor).`);
  for (const t of state.turns) {
    const cites = t.body.responds_to?.length ? ` (→ ${t.body.responds_to.join(', ')})` : '';
    out.push(`- ${t.label} r${t.round} ${t.speaker}${cites}: ${clip(oneLine(t.body.message), MESSAGE_CHARS)}`);
  }
  return out;
}

function synthesisSections(state: PanelRunState): string[][] {
  const body = state.moderator?.body;
  if (!body) return [['## Strengths, risks, problems', 'Not assessed: no synthesis was written.']];
  return [
    ['## Top strengths', ...bullets(body.top_strengths, 'None listed.')],
    ['## Top risks', ...bullets(body.top_risks, 'None listed.')],
    ['## Top problems', ...bullets(body.top_problems, 'None listed.')],
    ['## Biggest disagreement', oneLine(body.biggest_disagreement)],
    ['## Recommended experiment', oneLine(body.recommended_experiment)],
  ];
}

function qualitySection(state: PanelRunState): string[] {
  const out = ['## Panel quality'];
  const q = state.quality;
  if (!q) {
    out.push('Not measured: the roast did not complete.');
  } else {
    out.push(`Status: ${q.status}; max Jaccard between two judges ${q.figures.max_jaccard} (collapse at 0.85).`);
    const generic = Object.entries(q.figures.generic_rates)
      .filter(([, rate]) => (rate ?? 0) > 0)
      .map(([j, rate]) => `${j} ${Math.round((rate ?? 0) * 100)} %`);
    out.push(`Generic evidence: ${generic.length ? generic.join(', ') : 'none'}.`);
    for (const r of q.reasons) out.push(`- ${r}`);
  }
  const seconds = Object.entries(state.phaseSeconds).map(([phase, s]) => `${phase} ${Math.round((s ?? 0) * 10) / 10} s`);
  if (seconds.length) out.push(`Phases: ${seconds.join(', ')}.`);
  out.push('', 'Warnings:', ...bullets(state.warnings.map((w) => `${w.kind}: ${oneLine(w.detail)}`), 'None.'));
  return out;
}

function appealSection(state: PanelRunState): string[] {
  const a = state.appeal;
  if (!a) return [];
  const out = ['## Appeal', `Evidence (${a.status}):`, ...a.evidence.map((e, i) => `- E${i + 1}: ${oneLine(e)}`)];
  const rescored = new Map<JudgeRole, RevoteRecord>(state.revotes.filter((r) => r.phase === 'appeal').map((r) => [r.judge, r]));
  for (const j of a.judges) {
    const r = rescored.get(j);
    const before = a.previous[j];
    if (!r) out.push(`- ${j}: ${before ?? 'n/a'} → no re-score recorded${a.status === 'running' ? ' yet' : ''}`);
    else if (r.score === r.previous) out.push(`- ${j}: ${r.previous} → unchanged`);
    else out.push(`- ${j}: ${r.previous} → ${r.score} (${signed(r.score - r.previous)})${r.body.change_reason ? `: ${oneLine(r.body.change_reason)}` : ''}`);
  }
  return out;
}

function auditSection(state: PanelRunState, audit: ReportAudit): string[] {
  return [
    '## Audit',
    `${auditFigures(audit)}; moderator ${agentName(state, 'moderator')}.`,
    `\`roundtable calls ${state.runId}\` for prompts, responses, tokens, cost.`,
    ...recordLine(state.runId, audit),
  ];
}

export function renderPanelReport(input: PanelReportInput): string {
  const { state, decisions, audit } = input;
  const sections: string[][] = [
    [`# ${state.config.project} — panel run ${state.runId}`, '', ...recommendationSection(state, decisions)],
    ideaSection(state),
    judgesSection(state),
    debateSection(state),
    ...synthesisSections(state),
    qualitySection(state),
    appealSection(state),
    auditSection(state, audit),
  ];
  return `${sections
    .filter((s) => s.length > 0)
    .map((s) => s.join('\n'))
    .join('\n\n')}\n`;
}
