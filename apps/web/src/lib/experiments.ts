import { isEndedStatus } from '@roundtable/run-view';
import type { ExperimentDetail, Preregistration } from './api-types';

/** How many of a hash's hex digits the pages show (the full hash is a copy away). */
export const SHORT_HASH = 12;
export const shortHash = (hash: string): string => hash.slice(0, SHORT_HASH);

/** The experiment's run that has not ended yet (queued, running, at its gate), newest first; null when none is live. */
export function liveRunOf(detail: Pick<ExperimentDetail, 'runs'>): ExperimentDetail['runs'][number] | null {
  return [...detail.runs].sort((a, b) => b.created_at.localeCompare(a.created_at)).find((r) => !isEndedStatus(r.status)) ?? null;
}

/**
 * Why Run is not offered now, in the words the page shows beside the disabled button; null when
 * a run may be asked for. The api decides (its 409 is shown as well): this only spares a click
 * that could only be refused.
 */
export function runBlockedReason(detail: Pick<ExperimentDetail, 'id' | 'status' | 'result' | 'decision' | 'runs' | 'preregistration'>): string | null {
  if (detail.result) return `It already has a result${detail.decision ? ` (decided ${detail.decision})` : ''}: a second run is refused; a changed copy is a new experiment.`;
  if (detail.status === 'rejected') return 'Its draft was rejected at the preregistration gate: only a locked preregistration runs.';
  if (detail.status === 'draft' || !detail.preregistration) return 'It is a draft: its preregistration is approved at the gate of its run first, then it runs.';
  const live = liveRunOf(detail);
  if (live) return `A run of it is live (${live.id}, ${live.status}): wait for it to end, or cancel it.`;
  return null;
}

/** Where a drafted experiment came from, as the page names it: a build's open question, or an idea. */
export type SourceLink = { kind: 'build'; runId: string; questionId: string } | { kind: 'idea'; ideaId: string; panelRunId: string | null };

export function sourceOf(source: ExperimentDetail['source']): SourceLink | null {
  if (!source) return null;
  if ('build_run_id' in source) return { kind: 'build', runId: source.build_run_id, questionId: source.question_id };
  return { kind: 'idea', ideaId: source.idea_id, panelRunId: source.panel_run_id };
}

/** The badge class of a decision: PASS good, KILL bad, INCONCLUSIVE a warning; none yet plain. */
export function decisionClass(decision: string | null | undefined): string {
  return decision === 'PASS' ? 'good' : decision === 'KILL' ? 'bad' : decision === 'INCONCLUSIVE' ? 'warn' : '';
}

/** A metric's value as the tables show it: whole numbers as they are, others to at most 4 decimals. */
export function fmtMetric(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (!Number.isFinite(value)) return String(value);
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
}

/** The metrics in the order the method names them, then any others it printed; null values for ones it did not. */
export function metricRows(names: readonly string[], metrics: Record<string, number> | null | undefined): { name: string; value: number | null; declared: boolean }[] {
  const got = metrics ?? {};
  const declared = names.map((name) => ({ name, value: Object.hasOwn(got, name) ? got[name] : null, declared: true }));
  const extra = Object.keys(got)
    .filter((k) => !names.includes(k))
    .sort()
    .map((name) => ({ name, value: got[name], declared: false }));
  return [...declared, ...extra];
}

/**
 * Whether a value looks like a preregistration (an approval subject's `preregistration`, a
 * draft): a title, a hypothesis and a method with a command. Gate subjects are untyped JSON.
 */
export function isPreregistration(value: unknown): value is Preregistration {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  const method = v.method as Record<string, unknown> | null | undefined;
  return typeof v.title === 'string' && typeof v.hypothesis === 'string' && !!method && typeof method === 'object' && typeof method.command === 'string';
}

/** Every criterion of a preregistration with its id and kind, successes first (contracts' criteriaOf, restated: no zod in the browser). */
export function criteriaOfPrereg(prereg: Pick<Preregistration, 'success_criteria' | 'failure_criteria'>): { id: string; kind: 'success' | 'failure'; expr: string; note: string | null }[] {
  const of = (list: Preregistration['success_criteria'] | undefined, kind: 'success' | 'failure', prefix: string) =>
    (Array.isArray(list) ? list : []).map((c, i) => ({ id: c?.id ?? `${prefix}${i + 1}`, kind, expr: c?.expr ?? '', note: c?.note ?? null }));
  return [...of(prereg.success_criteria, 'success', 'S'), ...of(prereg.failure_criteria, 'failure', 'F')];
}
