import { seg } from '../api-client';
import { DEFAULT_API, UsageError } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { loadProjectFile } from '../project-file';
import { DEFAULT_TABLE_WIDTH, renderPlainRows, renderTable } from '../table';
import { paintVerdict, type Style } from '../terminal';
import { followToExit } from './follow-to-exit';

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
interface ExperimentListItem {
  id: string;
  project: string;
  title: string | null;
  status: string;
  decision: Decision | null;
  run_id: string | null;
  created_at: string;
}

/** What each action takes after `experiment <action>`: its positional, by name (none for list). */
const ACTIONS: Record<string, string[]> = {
  preregister: ['file'],
  run: ['experiment'],
  show: ['experiment'],
  list: [],
};

/** The first 12 characters of the preregistration's hash: enough to tell two apart, short enough to read. */
const shortHash = (h: string | null): string => (h ? h.slice(0, 12) : '-');

/** PASS green, KILL red, INCONCLUSIVE yellow: the terminal's verdict colours. */
export const paintDecision = (s: Style, d: string): string => paintVerdict(s, d);

/** The preregistered criteria, as written: `success S1: expr (note)`. */
function preregCriteriaLines(p: Preregistration): string[] {
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
function decisionLines(e: ExperimentDetail, s: Style): string[] {
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
function showLines(e: ExperimentDetail, s: Style): string[] {
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

/**
 * `experiment preregister FILE | run ID [--no-follow] | show ID | list [--project P] [--status S]` (issue 24),
 * through /v1/experiments. An experiment's run is an ordinary run of the `experiment` workflow: `run` follows
 * it like `roundtable run --follow`, then prints the decision the run left on the experiment.
 */
export async function experimentCommand(ctx: CommandContext): Promise<number> {
  const { action, rest } = experimentArgs(ctx);
  const json = ctx.cli.json;
  const { client } = ctx;
  const s = ctx.style;
  switch (action) {
    case 'preregister': {
      // An experiment file is a project file: ${VAR}s expanded from this shell, `repo` and cassettes made absolute.
      const config = loadProjectFile(rest.file, ctx.io.cwd, ctx.io.env);
      const e = await client.postJson<ExperimentDetail>('/v1/experiments', config);
      if (json) {
        printJson(ctx, e);
        return EXIT.OK;
      }
      // The id alone on stdout, as `run` and `idea new` print theirs: ID=$(roundtable experiment preregister f.yaml).
      printLines(ctx, [e.id]);
      const about = [
        `${s.bold(e.id)}  ${e.title ?? e.preregistration?.title ?? ''}`.trimEnd(),
        `status: ${e.status}`,
        `hash: ${shortHash(e.prereg_hash)}`,
        `commit: ${e.commit ?? '- (pinned when it is locked)'}`,
        ...(e.preregistration ? ['criteria:', ...preregCriteriaLines(e.preregistration)] : []),
        `next: ${commandHint(ctx, `experiment run ${e.id}`, DEFAULT_API)}`,
      ];
      ctx.io.stderr.write(about.map((l) => `${l}\n`).join(''));
      return EXIT.OK;
    }
    case 'run': {
      const started = await client.postJson<{ experiment_id: string; run_id: string }>(`/v1/experiments/${seg(rest.experiment)}/run`, {});
      // commander's `--no-follow`: cli-program.ts records it as `no-follow: true` when given.
      if (ctx.cli.options['no-follow'] === true) {
        if (json) printJson(ctx, started);
        else printLines(ctx, [started.run_id]);
        return EXIT.OK;
      }
      const code = await followToExit(ctx, started.run_id, json ? 'json' : 'pretty');
      // A run that failed, halted or was cancelled says so in its exit code; Ctrl-C leaves the run going.
      if (code !== EXIT.OK) return code;
      const e = await client.getJson<ExperimentDetail>(`/v1/experiments/${seg(started.experiment_id)}`);
      if (json) {
        // The events went out as JSON lines; the experiment is one more line.
        ctx.io.stdout.write(`${JSON.stringify(e)}\n`);
      } else {
        printLines(ctx, [...decisionLines(e, s), `details: ${commandHint(ctx, `experiment show ${e.id}`, DEFAULT_API)}`]);
      }
      // A decision is a result, not an error: KILL and INCONCLUSIVE exit 0 like PASS.
      if (e.decision) return EXIT.OK;
      ctx.io.stderr.write(`run ${started.run_id} ended done but experiment ${e.id} has no decision (status ${e.status})\n`);
      return EXIT.ERROR;
    }
    case 'show': {
      const e = await client.getJson<ExperimentDetail>(`/v1/experiments/${seg(rest.experiment)}`);
      if (json) printJson(ctx, e);
      else printLines(ctx, showLines(e, s));
      return EXIT.OK;
    }
    case 'list': {
      const params = new URLSearchParams();
      for (const name of ['project', 'status'] as const) {
        const v = ctx.cli.options[name];
        if (typeof v === 'string') params.set(name, v);
      }
      const query = params.toString() ? `?${params.toString()}` : '';
      const { items } = await client.getJson<{ items: ExperimentListItem[] }>(`/v1/experiments${query}`);
      if (json) {
        printJson(ctx, { items });
        return EXIT.OK;
      }
      const rows = items.map((x) => [x.id, x.project, x.title ?? '-', x.status, x.decision ?? '-', x.created_at]);
      if (!ctx.tty) {
        // As `runs` does off a terminal: tab-separated rows, no header, for cut and awk.
        printLines(ctx, renderPlainRows(rows));
        return EXIT.OK;
      }
      if (!rows.length) {
        printLines(ctx, [s.dim('no experiments')]);
        return EXIT.OK;
      }
      printLines(
        ctx,
        renderTable(
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
          ctx.io.stdout.columns || DEFAULT_TABLE_WIDTH,
        ),
      );
      return EXIT.OK;
    }
  }
  return EXIT.ERROR;
}

/** The action and its positional by name; a wrong action or count is a usage error that lists the forms. */
function experimentArgs(ctx: CommandContext): { action: keyof typeof ACTIONS; rest: Record<string, string> } {
  const { action, target } = ctx.cli.args;
  const forms = Object.entries(ACTIONS).map(([a, args]) => `experiment ${a}${args.map((x) => ` <${x}>`).join('')}`);
  if (!Object.hasOwn(ACTIONS, action)) throw new UsageError(`unknown experiment action ${action}; one of: ${forms.join(' | ')}`, 'experiment');
  const names = ACTIONS[action];
  // An empty argument (ID=$(…) that printed nothing) is a missing one, not a request for /v1/experiments//run.
  const positionals = target === undefined || target.trim() === '' ? [] : [target];
  if (positionals.length !== names.length) {
    throw new UsageError(names.length ? `experiment ${action} needs ${names.map((x) => `<${x}>`).join(' ')}` : `experiment ${action} takes no argument, got ${target}`, 'experiment');
  }
  return { action, rest: Object.fromEntries(names.map((n, i) => [n, positionals[i]])) };
}
