import type { Style } from './terminal';

/** The `panel` block of GET /v1/runs/:id for a panel run (apps/api/src/workflows/panel-summary.ts), as far as `show` reads it. */
export interface PanelSummary {
  idea: string;
  recommendation: string | null;
  confidence: number | null;
  scores: Record<string, number>;
  /** Each judge's score before the re-vote; null until the re-vote. */
  revote_baseline: Record<string, number> | null;
  debate_messages: number;
  max_debate_rounds: number;
  quality: string | null;
  low_confidence?: boolean;
  warnings: string[];
  appeal: { status: string; judges: string[] } | null;
  /** true, or why not. */
  can_appeal: true | string;
}

/** The judges in the panel's fixed order (libs/contracts JUDGES), then any other name the API sends. */
const ORDER = ['vc', 'engineer', 'pm', 'customer', 'competitor'];

const signed = (n: number): string => (n > 0 ? `+${n}` : n < 0 ? `${n}` : '±0');

/** `vc 6 (+2)`: each judge's score now, and how far the re-vote (or appeal) moved it from the first verdict. */
export function judgeScores(panel: Pick<PanelSummary, 'scores' | 'revote_baseline'>): string {
  const judges = [...ORDER.filter((j) => j in panel.scores), ...Object.keys(panel.scores).filter((j) => !ORDER.includes(j))];
  if (!judges.length) return '-';
  return judges
    .map((j) => {
      const before = panel.revote_baseline?.[j];
      const score = Number(panel.scores[j].toFixed(2));
      return before === undefined ? `${j} ${score}` : `${j} ${score} (${signed(Number((panel.scores[j] - before).toFixed(2)))})`;
    })
    .join(', ');
}

/** `show`'s lines for a panel run, in place of a build's rounds and fix rounds. */
export function panelShowLines(panel: PanelSummary, style: Style): [string, string][] {
  const lines: [string, string][] = [
    ['idea', panel.idea],
    ['judges', judgeScores(panel)],
    ['re-vote', panel.revote_baseline ? 'done (deltas against each first verdict)' : 'not yet'],
    ['debate', `${panel.debate_messages} message${panel.debate_messages === 1 ? '' : 's'} (at most ${panel.max_debate_rounds} round${panel.max_debate_rounds === 1 ? '' : 's'})`],
  ];
  if (panel.quality) lines.push(['quality', panel.quality === 'ok' ? panel.quality : style.yellow(panel.quality)]);
  if (panel.warnings.length) lines.push(['warnings', style.yellow([...new Set(panel.warnings)].join(', '))]);
  if (panel.appeal) lines.push(['appeal', `${panel.appeal.status} (${panel.appeal.judges.join(', ')})`]);
  else lines.push(['appeal', panel.can_appeal === true ? 'possible: roundtable appeal <run> --evidence TEXT --judge J' : `not possible: ${panel.can_appeal}`]);
  return lines;
}
