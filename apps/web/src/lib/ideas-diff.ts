import type { IdeaDiff } from './api-types';

/** One row of the diff between two versions: a field, its value in each as text, whether it changed. */
export interface IdeaDiffRow {
  field: string;
  label: string;
  changed: boolean;
  from: string;
  to: string;
}

const LABELS: Record<string, string> = {
  title: 'Title',
  problem: 'Problem',
  target_user: 'Target user',
  solution: 'Solution',
  evidence: 'Evidence cited',
  assumptions: 'Assumptions',
  open_risks: 'Open risks',
  no_evidence_yet: 'No evidence yet',
};

/** A field's value as the diff shows it: lists one item a line, true/false as yes/no, nothing as an em dash. */
export function valueText(v: unknown): string {
  if (v === undefined || v === null || v === '') return '—';
  if (Array.isArray(v)) return v.length ? v.map(String).join('\n') : '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** GET /v1/ideas/:id/diff's fields as rows, in the api's (the worksheet's) order; `changedOnly` leaves the unchanged out. */
export function ideaDiffRows(diff: IdeaDiff, changedOnly = false): IdeaDiffRow[] {
  return diff.fields
    .filter((f) => !changedOnly || f.changed)
    .map((f) => ({ field: f.field, label: LABELS[f.field] ?? f.field, changed: f.changed, from: valueText(f.from), to: valueText(f.to) }));
}
