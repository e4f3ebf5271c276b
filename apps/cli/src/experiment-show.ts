// How the CLI prints an experiment (issue 24): its detail, its criteria and decision, and the list table.
import { DEFAULT_TABLE_WIDTH, renderPlainRows, renderTable } from './table';
import { paintVerdict, type Style } from './terminal';

/*
 * The experiments' replies (libs/contracts experiment-replies.schema.ts), restated as plain types:
 * the CLI loads no zod schema at start (see follow-run.ts), and reads only the fields it prints.
 */
type Decision = 'PASS' | 'KILL' | 'INCONCLUSIVE';
interface Criterion {
  id?: string;
  expr: string;
  note?: string;
}
interface Preregistration {
  title: string;
  hypothesis: string;
  expected_result: string;
  method: { description: string; command: string; metrics: string[]; timeout_s: number };
  success_criteria: Criterion[];
  failure_criteria: Criterion[];
  data?: unknown;
  assumptions?: string[];
  domain?: string;
}
interface CriterionOutcome {
  id: string;
  kind: 'success' | 'failure';
  expr: string;
  holds: boolean;
  reading: { holds: boolean; evidence: string } | null;
}
interface Interpretation {
  criteria: CriterionOutcome[];
  computed: Decision;
  interpreter_decision: Decision | null;
  override_request: { decision: Decision; reason: string } | null;
  summary: string | null;
  review: { agrees: boolean; disagreements: string[]; summary: string } | null;
  open_question: string | null;
  notes: string[];
}
export interface ExperimentDetail {
  id: string;
  project: string;
  title: string | null;
  status: 'draft' | 'locked' | 'decided' | 'rejected';
  hypothesis_id: string | null;
  repo: string | null;
  commit: string | null;
  preregistration: Preregistration | null;
  prereg_hash: string | null;
  locked_at: string | null;
  run_id: string | null;
  runs: { id: string; status: string; stage: string; created_at: string }[];
  result: { metrics: Record<string, number>; exit_code: number; duration_s: number; output_tail: string; commit: string; prereg_hash: string } | null;
  decision: Decision | null;
  interpretation: Interpretation | null;
  interpreted_at: string | null;
  created_by: string | null;
  created_at: string;
}
export interface ExperimentListItem {
  id: string;
  project: string;
  title: string | null;
  status: string;
  decision: Decision | null;
  run_id: string | null;
  created_at: string;
}

/** The first 12 characters of the preregistration's hash: enough to tell two apart, short enough to read. */
export const shortHash = (h: string | null): string => (h ? h.slice(0, 12) : '-');

/** PASS green, KILL red, INCONCLUSIVE yellow: the terminal's verdict colours. */
export const paintDecision = (s: Style, d: string): string => paintVerdict(s, d);

/** The preregistered criteria, as written: `success S1: expr (note)`. */
export function preregCriteriaLines(p: Preregistration): string[] {
  // Ids as the server numbers them when the file gives none: S1, S2 … then F1, F2 …
  const line = (kind: string, c: Criterion, id: string) => `  ${kind} ${c.id ?? id}: ${c.expr}${c.note ? ` (${c.note})` : ''}`;
  return [...p.success_criteria.map((c, i) => line('success', c, `S${i + 1}`)), ...p.failure_criteria.map((c, i) => line('failure', c, `F${i + 1}`))];
}

/** Each criterion as code read it against the metrics, with the interpreter's reading beside it. */
function outcomeLines(i: Interpretation, s: Style): string[] {
  return i.criteria.map((c) => {
    const holds = c.holds ? s.green('holds') : s.dim('does not hold');
    const reading = c.reading ? `; interpreter: ${c.reading.holds ? 'holds' : 'does not hold'}${c.reading.evidence ? ` (${c.reading.evidence})` : ''}` : '; interpreter: no reading';
    return `  ${c.kind} ${c.id}: ${c.expr}: ${holds}${reading}`;
  });
}

/** The decision and each criterion: what `experiment run` prints at the end and `show` includes. */
export function decisionLines(e: ExperimentDetail, s: Style): string[] {
  const lines = [`decision: ${e.decision ? paintDecision(s, e.decision) : '-'} (experiment ${e.id}, ${e.status})`];
  if (e.interpretation) {
    lines.push('criteria:', ...outcomeLines(e.interpretation, s));
    const o = e.interpretation.override_request;
    if (o) lines.push(`override request: ${o.decision} (not applied: the decision is computed from the criteria): ${o.reason}`);
    if (e.interpretation.open_question) lines.push(`open question: ${e.interpretation.open_question}`);
  } else if (e.preregistration) {
    lines.push('criteria (not read yet):', ...preregCriteriaLines(e.preregistration));
  }
  return lines;
}

/** `show`: the detail as labelled lines. */
export function showLines(e: ExperimentDetail, s: Style): string[] {
  const p = e.preregistration;
  const i = e.interpretation;
  const lines: string[] = [
    `${s.bold(e.id)}  ${e.title ?? p?.title ?? '(untitled)'}`,
    `project: ${e.project}`,
    `status: ${e.status}${e.locked_at ? ` (locked ${e.locked_at})` : ''}`,
    `hash: ${e.prereg_hash ?? '-'}`,
    `commit: ${e.commit ?? '-'}${e.repo ? ` in ${e.repo}` : ''}`,
  ];
  if (e.hypothesis_id) lines.push(`hypothesis id: ${e.hypothesis_id}`);
  if (p) {
    lines.push(`hypothesis: ${p.hypothesis}`, `expected: ${p.expected_result}`, `method: ${p.method.description}`, `  command: ${p.method.command} (timeout ${p.method.timeout_s}s)`);
    if (p.method.metrics.length) lines.push(`  metrics: ${p.method.metrics.join(', ')}`);
    for (const a of p.assumptions ?? []) lines.push(`assumption: ${a}`);
  }
  if (i) {
    lines.push('criteria:', ...outcomeLines(i, s));
  } else if (p) {
    lines.push('criteria (not read yet):', ...preregCriteriaLines(p));
  }
  lines.push(`decision: ${e.decision ? paintDecision(s, e.decision) : '-'}${i && i.interpreter_decision && i.interpreter_decision !== i.computed ? ` (computed ${i.computed}; the interpreter said ${i.interpreter_decision})` : ''}`);
  if (i) {
    if (i.override_request) lines.push(`override request: ${i.override_request.decision} (not applied: the decision is computed from the criteria): ${i.override_request.reason}`);
    if (i.summary) lines.push(`summary: ${i.summary}`);
    if (i.review) {
      lines.push(`review: ${i.review.agrees ? 'agrees' : s.yellow('disagrees')}: ${i.review.summary}`, ...i.review.disagreements.map((d) => `  - ${d}`));
    } else {
      lines.push('review: none');
    }
    if (i.open_question) lines.push(`open question: ${s.yellow(i.open_question)}`);
    for (const n of i.notes) lines.push(`note: ${n}`);
  }
  if (e.result) {
    const r = e.result;
    lines.push(`result: exit ${r.exit_code}, ${r.duration_s}s, at ${r.commit}${r.prereg_hash !== e.prereg_hash ? s.red(` (hash ${shortHash(r.prereg_hash)} is not the preregistration's)`) : ''}`);
    const metrics = Object.entries(r.metrics);
    lines.push(...(metrics.length ? metrics.map(([k, v]) => `  ${k} = ${v}`) : ['  no metrics']));
  } else {
    lines.push('result: none yet');
  }
  if (e.runs.length) lines.push('runs:', ...e.runs.map((r) => `  ${r.id}  ${r.status}  ${r.stage}  ${r.created_at}`));
  lines.push(`created: ${e.created_at}${e.created_by ? ` by ${e.created_by}` : ''}`);
  return lines;
}

/** `list`: a table on a terminal. */
export function listLines(items: ExperimentListItem[], s: Style, tty: boolean, columns: number | undefined): string[] {
  const rows = items.map((x) => [x.id, x.project, x.title ?? '-', x.status, x.decision ?? '-', x.created_at]);
  // As `runs` does off a terminal: tab-separated rows, no header, for cut and awk.
  if (!tty) return renderPlainRows(rows);
  if (!rows.length) return [s.dim('no experiments')];
  return renderTable(
    [
      { header: 'EXPERIMENT' },
      { header: 'PROJECT' },
      { header: 'TITLE' },
      { header: 'STATUS' },
      { header: 'DECISION', paint: (v) => (v === '-' ? v : paintDecision(s, v)) },
      { header: 'CREATED' },
    ],
    rows,
    s,
    columns || DEFAULT_TABLE_WIDTH,
  );
}
