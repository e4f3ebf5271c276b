import type { ApiErrorBody, EvidenceKind, Worksheet } from './api-types';

/**
 * The ideas pages' request bodies (issue 23), from the forms' text: a worksheet as typed (lists
 * one item a line), an edit as only the fields that differ from the version it is laid over, a
 * ledger entry. The api judges the values (readiness, sizes, known ledger ids); these only shape
 * what was typed, so its 400 can be shown at the field it names.
 */

/** A worksheet as its form holds it: text fields, lists one item a line, the cited ledger ids as typed. */
export interface WorksheetForm {
  title: string;
  problem: string;
  target_user: string;
  solution: string;
  /** Ledger ids, separated by spaces or commas (E1, E3). */
  evidence: string;
  /** One a line. */
  assumptions: string;
  open_risks: string;
  no_evidence_yet: boolean;
}

export const EMPTY_WORKSHEET_FORM: WorksheetForm = { title: '', problem: '', target_user: '', solution: '', evidence: '', assumptions: '', open_risks: '', no_evidence_yet: false };

/** The form's fields, in the worksheet's order, with what a person reads beside each. */
export const WORKSHEET_FORM_FIELDS: readonly { name: keyof WorksheetForm; label: string }[] = [
  { name: 'title', label: 'Title' },
  { name: 'problem', label: 'Problem' },
  { name: 'target_user', label: 'Target user' },
  { name: 'solution', label: 'Solution' },
  { name: 'evidence', label: 'Evidence cited (ledger ids, e.g. E1 E2)' },
  { name: 'assumptions', label: 'Assumptions (one a line)' },
  { name: 'open_risks', label: 'Open risks (one a line)' },
  { name: 'no_evidence_yet', label: 'No evidence yet' },
];

/** A list typed one item a line: each line trimmed, blank lines left out. */
export const linesOf = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** Ledger ids typed with spaces or commas between them, in the order typed, each once. */
export const evidenceIdsOf = (text: string): string[] => [...new Set(text.split(/[\s,;]+/).map((s) => s.trim().toUpperCase()).filter(Boolean))];

/** The worksheet a form holds, as POST /v1/ideas takes it (the text fields as typed: the api's readiness judges blanks). */
export function worksheetOf(form: WorksheetForm): Worksheet {
  return {
    title: form.title.trim(),
    problem: form.problem.trim(),
    target_user: form.target_user.trim(),
    solution: form.solution.trim(),
    evidence: evidenceIdsOf(form.evidence),
    assumptions: linesOf(form.assumptions),
    open_risks: linesOf(form.open_risks),
    no_evidence_yet: form.no_evidence_yet,
  };
}

/** A version's worksheet as the Edit form starts from it. */
export function worksheetFormOf(w: Worksheet): WorksheetForm {
  return {
    title: w.title,
    problem: w.problem,
    target_user: w.target_user,
    solution: w.solution,
    evidence: w.evidence.join(' '),
    assumptions: w.assumptions.join('\n'),
    open_risks: w.open_risks.join('\n'),
    no_evidence_yet: w.no_evidence_yet,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export type EditBody = Partial<Worksheet> & { base_version: number };
export type BuiltEdit = { ok: true; body: EditBody } | { ok: false; message: string };

/**
 * POST /v1/ideas/:id/versions for the form laid over version `base`: only the fields that differ
 * from it, and `base_version` (so an edit of a version a panel locked is the api's 409, not a
 * silent edit of some other version). Nothing changed is said here, not sent.
 */
export function editBodyOf(base: { version: number; worksheet: Worksheet }, form: WorksheetForm): BuiltEdit {
  const next = worksheetOf(form);
  const changes: Partial<Worksheet> = {};
  for (const key of Object.keys(next) as (keyof Worksheet)[]) {
    if (!same(next[key], base.worksheet[key])) (changes as Record<string, unknown>)[key] = next[key];
  }
  if (Object.keys(changes).length === 0) return { ok: false, message: `Nothing differs from version ${base.version}: change a field to make a new version.` };
  return { ok: true, body: { ...changes, base_version: base.version } };
}

/** A ledger entry as its form holds it. */
export interface EvidenceForm {
  claim: string;
  source: string;
  kind: EvidenceKind | '';
  /** YYYY-MM-DD (a date input's value). */
  date: string;
  /** An entry id this one corrects, or ''. */
  supersedes: string;
}

export const EMPTY_EVIDENCE_FORM: EvidenceForm = { claim: '', source: '', kind: '', date: '', supersedes: '' };

/** POST /v1/ideas/:id/evidence: `supersedes` only when one is named; the api judges the rest. */
export function evidenceBodyOf(form: EvidenceForm): Record<string, string> {
  const body: Record<string, string> = { claim: form.claim.trim(), source: form.source.trim(), kind: form.kind, date: form.date.trim() };
  const supersedes = form.supersedes.trim().toUpperCase();
  if (supersedes) body.supersedes = supersedes;
  return body;
}

/** The api's issues, each at the form field it names: `assumptions.0` is the assumptions field, `idea_ref.worksheet.problem` the problem. */
export interface FieldIssues {
  byField: Record<string, string[]>;
  /** Issues about no field the form has (the body as a whole): shown above the button. */
  general: string[];
}

export function fieldIssuesOf(body: ApiErrorBody | null, fields: readonly string[]): FieldIssues {
  const out: FieldIssues = { byField: {}, general: [] };
  for (const issue of body?.issues ?? []) {
    const parts = issue.path.replace(/^idea_ref\.worksheet\.?/, '').split('.');
    const field = parts.find((p) => fields.includes(p));
    if (field) (out.byField[field] ??= []).push(issue.message);
    else out.general.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message);
  }
  return out;
}

/** A project's name for a panel on an idea: the title's words in lower case joined by '-', else the idea's id. */
export function projectSlugOf(title: string, ideaId: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || ideaId;
}
