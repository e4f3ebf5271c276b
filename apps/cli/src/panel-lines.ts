import type { RunEventEnvelope, RunEventPayload, RunEventType } from '@roundtable/contracts';
import { fmtConfidence } from './format';
import { paintVerdict, Style } from './terminal';

type Payload<T extends RunEventType> = RunEventPayload<T>;

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();
const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));
const scoreList = (scores: Partial<Record<string, number>>): string =>
  Object.entries(scores)
    .map(([j, s]) => `${j} ${s}`)
    .join(', ');

/**
 * The lines of `run --follow` for the panel's own events. Each call already has its line and
 * gist (verdict score, debate message); these add what no call line says: who was dispatched,
 * the panel's quality, score moves with their reasons, warnings, and the appeal. null: not a
 * panel event.
 */
export function panelLines(ev: RunEventEnvelope, s: Style): string[] | null {
  switch (ev.type) {
    case 'judges_dispatched': {
      const p = ev.payload as Payload<'judges_dispatched'>;
      return [`${s.cyan('[ROAST]')} ${p.round ? `retry ${p.round}: ` : ''}judges dispatched in parallel: ${p.judges.join(', ')}`];
    }
    case 'roast_panel_completed': {
      const p = ev.payload as Payload<'roast_panel_completed'>;
      const q = p.quality ? `panel ${p.quality.status} (max Jaccard ${p.quality.figures.max_jaccard})` : 'panel';
      return [`${s.cyan('[ROAST]')} ${q}: ${scoreList(p.scores)}`];
    }
    case 'panel_retry': {
      const p = ev.payload as Payload<'panel_retry'>;
      return [s.yellow(`! weak panel, retry ${p.attempt}${p.judges?.length ? ` of ${p.judges.join(', ')}` : ''}: ${p.reasons.map(oneLine).join('; ')}`)];
    }
    case 'revote_started': {
      const p = ev.payload as Payload<'revote_started'>;
      return [`${s.cyan('[REVOTE]')} baseline: ${scoreList(p.baseline)}`];
    }
    case 'revote_judge_completed': {
      const p = ev.payload as Payload<'revote_judge_completed'>;
      const move = p.delta === 0 ? 'unchanged' : `${p.previous} → ${p.score} (${signed(p.delta)})${p.capped ? ' capped' : ''}`;
      return [`  ${p.judge} ${move}${p.change_reason ? s.dim(`: ${oneLine(p.change_reason)}`) : ''}`];
    }
    case 'moderator_completed': {
      const p = ev.payload as Payload<'moderator_completed'>;
      return [
        `${s.cyan('[MODERATE]')} ${paintVerdict(s, p.synthesis.overall_recommendation)} (confidence ${fmtConfidence(p.synthesis.confidence)})`,
        `  disagreement: ${oneLine(p.synthesis.biggest_disagreement)}`,
        `  experiment: ${oneLine(p.synthesis.recommended_experiment)}`,
      ];
    }
    case 'panel_warning': {
      const p = ev.payload as Payload<'panel_warning'>;
      return [s.yellow(`! panel ${p.kind}: ${oneLine(p.detail)}`)];
    }
    case 'appeal_started': {
      const p = ev.payload as Payload<'appeal_started'>;
      return [`${s.cyan('[APPEAL]')} re-scoring ${scoreList(p.scores)}`];
    }
    case 'appeal_completed': {
      const p = ev.payload as Payload<'appeal_completed'>;
      const moves = p.judges.map((j) => {
        const before = p.previous?.[j];
        const after = p.scores[j];
        const reason = p.change_reasons?.[j];
        return `${j} ${before ?? '?'} → ${after ?? '?'}${reason ? ` (${oneLine(reason)})` : ''}`;
      });
      return [`${s.cyan('[APPEAL]')} done: ${moves.join('; ')}`];
    }
    default:
      return null;
  }
}
