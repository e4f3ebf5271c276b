import type { AuditRate, BiasAudit, BiasFlag } from './api-types';

/**
 * How the workbench's /audit page words the bias audit (issue 25 §3): the api computes every figure
 * (libs/workflow's biasAudit); these only format them.
 */

/** A share as a whole percentage; '—' when there was nothing to share. */
export const fmtRate = (rate: number | null): string => (rate === null ? '—' : `${Math.round(rate * 100)} %`);

/** `4 of 6 (67 %)`; `—` when the whole is 0. */
export const fmtOutOf = (r: AuditRate): string => (r.of === 0 ? '—' : `${r.count} of ${r.of} (${fmtRate(r.rate)})`);

/** What each flag means, in a reader's words. */
export const FLAG_TITLES: Record<BiasFlag['kind'], string> = {
  never_revises: 'never revises',
  accepts_failures: 'accepts failing work',
  herds: 'moves with the herd',
  self_preference: 'prefers its own provider',
};

/** The histogram as the screen reader hears it: `1: 0, 2: 0, 3: 1 …`. */
export const histogramLabel = (h: BiasAudit['judges'][number]['scores']['histogram']): string => `scores ${h.map((b) => `${b.score}: ${b.count}`).join(', ')}`;

/** What the page says about the runs it read. */
export function scopeText(s: BiasAudit['scope']): string {
  const of = s.project ? ` of project ${s.project}` : '';
  const left = s.truncated ? '; older runs were left out' : '';
  return `Read the newest ${s.runs} run${s.runs === 1 ? '' : 's'}${of} (at most ${s.run_limit}${left}): ${s.build_runs} with critiques, ${s.panel_runs} with panel scores.`;
}
