import { JUDGES, type JudgeRole } from '@roundtable/contracts';
import type { RunEntity } from '@roundtable/persistence';
import { currentScores, type JudgeVerdictRecord, type RevoteRecord } from '@roundtable/workflow';
import type { JudgeVerdictItem, PanelRecords, RescoreItem } from '@roundtable/contracts';
import { panelStateOfRun } from './panel-summary';

function verdictItem(v: JudgeVerdictRecord): JudgeVerdictItem {
  return {
    label: v.label,
    call_id: v.callId,
    attempt: v.attempt,
    score: v.body.score,
    stance: v.body.stance,
    top_concerns: v.body.top_concerns,
    evidence: v.body.evidence,
    what_would_change_my_mind: v.body.what_would_change_my_mind,
    confidence: v.body.confidence,
  };
}

function rescoreItem(r: RevoteRecord): RescoreItem {
  return {
    label: r.label,
    call_id: r.callId,
    judge: r.judge,
    previous: r.previous,
    requested: r.requested,
    score: r.score,
    delta: r.score - r.previous,
    capped: r.capped,
    changed: r.body.changed,
    change_reason: r.body.change_reason ?? null,
    confidence: r.body.confidence,
  };
}

/**
 * GET /v1/runs/:id/records for a panel run: one card per judge (its latest verdict, the ones a
 * retry replaced, and what the quality gate said of it), the debate in speaking order, the
 * re-vote against its baseline, the moderator's close and the appeal — the snapshot's records.
 */
export function panelRecordsView(run: RunEntity): PanelRecords {
  const s = panelStateOfRun(run);
  const scores = currentScores(s);
  const figures = s.quality?.figures;
  const card = (judge: JudgeRole) => {
    const own = s.verdicts.filter((v) => v.judge === judge);
    return {
      judge,
      score: scores[judge] ?? null,
      verdict: own.length ? verdictItem(own[own.length - 1]) : null,
      earlier_verdicts: own.slice(0, -1).map(verdictItem),
      weak: s.quality?.weak_judges.includes(judge) ?? false,
      generic_rate: figures?.generic_rates[judge] ?? null,
      duplicate_concerns: figures?.duplicates[judge] ?? [],
    };
  };
  const m = s.moderator;
  const idea = s.config.idea;
  return {
    workflow: 'panel',
    idea: { title: idea.title, description: idea.description, target_user: idea.target_user, evidence: idea.evidence ?? [] },
    judges: JUDGES.map(card),
    quality: s.quality ? { status: s.quality.status, max_jaccard: s.quality.figures.max_jaccard, weak_judges: s.quality.weak_judges, reasons: s.quality.reasons } : null,
    low_confidence: s.lowConfidence,
    warnings: s.warnings.map((w) => ({ kind: w.kind, detail: w.detail, judges: w.judges ?? [] })),
    debate: s.turns.map((t) => ({ label: t.label, call_id: t.callId, speaker: t.speaker, round: t.round, message: t.body.message, responds_to: t.body.responds_to ?? [] })),
    revote: s.revoteBaseline ? { baseline: s.revoteBaseline, rescores: s.revotes.filter((r) => r.phase === 'revote').map(rescoreItem) } : null,
    moderator: m
      ? {
          label: m.label,
          call_id: m.callId,
          partial: m.partial,
          overall_recommendation: m.body?.overall_recommendation ?? null,
          confidence: m.body?.confidence ?? null,
          top_strengths: m.body?.top_strengths ?? [],
          top_risks: m.body?.top_risks ?? [],
          top_problems: m.body?.top_problems ?? [],
          biggest_disagreement: m.body?.biggest_disagreement ?? null,
          recommended_experiment: m.body?.recommended_experiment ?? null,
        }
      : null,
    appeal: s.appeal
      ? {
          status: s.appeal.status,
          evidence: s.appeal.evidence,
          judges: s.appeal.judges,
          previous: s.appeal.previous,
          rescores: s.revotes.filter((r) => r.phase === 'appeal').map(rescoreItem),
        }
      : null,
  };
}
