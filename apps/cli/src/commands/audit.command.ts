import type { AuditRate, BiasAudit } from '@roundtable/contracts';
import { UsageError } from '../cli-args';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { renderTable } from '../table';
import type { Style } from '../terminal';

/** What `audit` audits: only the bias audit so far (issue 25 §3). */
const KINDS = ['bias'] as const;

/** A piped audit is not cut to 80 columns: the flags' details and the tables stay whole. */
const PIPE_WIDTH = 240;

const pct = (r: number | null) => (r === null ? '-' : `${Math.round(r * 100)} %`);
const frac = (r: AuditRate) => `${r.count}/${r.of}${r.rate === null ? '' : ` (${pct(r.rate)})`}`;
const num = (n: number | null, digits = 1) => (n === null ? '-' : n.toFixed(digits));

/** A histogram as one character per score of the scale: · for none, the count up to 9, + above. */
export const histogramText = (h: BiasAudit['judges'][number]['scores']['histogram']) => h.map((b) => (b.count === 0 ? '·' : b.count > 9 ? '+' : String(b.count))).join('');

/** The audit as text: flags first, then the critics' table, the judges' table, self-preference, and what was read. */
export function biasAuditLines(a: BiasAudit, s: Style, width: number): string[] {
  const lines: string[] = [];
  if (!a.flags.length) lines.push(s.green('flags: none'));
  else {
    lines.push(s.bold(s.red(`flags (${a.flags.length}):`)));
    lines.push(...renderTable([{ header: 'KIND', paint: s.red }, { header: 'SUBJECT' }, { header: 'DETAIL' }], a.flags.map((f) => [f.kind, f.subject, f.detail]), s, width).map((l) => `  ${l}`));
  }
  lines.push('', s.bold('critics'));
  if (!a.critics.length) lines.push(s.dim('  no critiques in these runs'));
  else {
    lines.push(
      ...renderTable(
        [
          { header: 'CRITIC' },
          { header: 'VERDICTS', align: 'right' },
          { header: 'ACCEPT', align: 'right' },
          { header: 'REVISE', align: 'right' },
          { header: 'REJECT', align: 'right' },
          { header: 'ACCEPT→TESTS FAILED', align: 'right' },
          { header: 'ACCEPT→REVIEW FAILED', align: 'right' },
          { header: 'RUNS', align: 'right' },
        ],
        a.critics.map((c) => [c.subject, String(c.verdicts), pct(c.accept.rate), pct(c.revise.rate), pct(c.reject.rate), frac(c.accepts_then_failing_tests), frac(c.accepts_then_failing_review), String(c.runs)]),
        s,
        width,
      ),
    );
  }
  lines.push('', s.bold('judges'));
  if (!a.judges.length) lines.push(s.dim('  no panel scores in these runs'));
  else {
    const scale = a.judges[0].scores.histogram;
    lines.push(
      ...renderTable(
        [
          { header: 'JUDGE' },
          { header: 'MODEL' },
          { header: 'SCORES', align: 'right' },
          { header: 'MEAN', align: 'right' },
          { header: 'RANGE', align: 'right' },
          { header: `${scale[0]?.score ?? 1}…${scale.at(-1)?.score ?? 10}` },
          { header: 'HERD MOVES', align: 'right' },
          { header: 'DRIFT', align: 'right' },
        ],
        a.judges.map((j) => [
          j.judge,
          `${j.provider}/${j.model}`,
          String(j.scores.count),
          num(j.scores.mean),
          j.scores.min === null ? '-' : `${j.scores.min}–${j.scores.max}`,
          histogramText(j.scores.histogram),
          frac(j.herd_moves),
          j.drift.pairs ? `${num(j.drift.mean_abs_change)} (${j.drift.pairs})` : '-',
        ]),
        s,
        width,
      ),
    );
  }
  if (a.self_preference.length) {
    lines.push('', s.bold('self-preference (ACCEPT rate: author on its own provider / another)'));
    lines.push(
      ...renderTable(
        [{ header: 'ROLE' }, { header: 'SAME PROVIDER', align: 'right' }, { header: 'OTHER PROVIDER', align: 'right' }, { header: 'DIFFERENCE', align: 'right' }],
        a.self_preference.map((p) => [p.role, frac(p.same_provider), frac(p.other_provider), p.difference === null ? '-' : `${p.difference >= 0 ? '+' : ''}${p.difference.toFixed(2)}`]),
        s,
        width,
      ),
    );
  }
  const sc = a.scope;
  lines.push(
    '',
    s.dim(
      `read ${sc.runs} run${sc.runs === 1 ? '' : 's'}${sc.project ? ` of project ${sc.project}` : ''} (the newest, at most ${sc.run_limit}${sc.truncated ? '; older runs left out' : ''}): ${sc.build_runs} with critiques, ${sc.panel_runs} with panel scores`,
    ),
  );
  return lines;
}

/** `audit bias [--project P] [--json]` (issue 25 §3): GET /v1/audit/bias, flags first. */
export async function auditCommand(ctx: CommandContext): Promise<number> {
  const kind = ctx.cli.args.kind;
  if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`unknown audit ${kind}; one of: ${KINDS.join(', ')}`, 'audit');
  const params = new URLSearchParams();
  const project = ctx.cli.options.project;
  if (project !== undefined) {
    if (typeof project !== 'string' || !project.trim()) throw new UsageError('--project needs a project name', 'audit');
    params.set('project', project.trim());
  }
  const query = params.toString() ? `?${params.toString()}` : '';
  const audit = await ctx.client.getJson<BiasAudit>(`/v1/audit/bias${query}`);
  if (ctx.cli.json) {
    printJson(ctx, audit);
    return EXIT.OK;
  }
  printLines(ctx, biasAuditLines(audit, ctx.style, ctx.tty ? ctx.io.stdout.columns || PIPE_WIDTH : PIPE_WIDTH));
  return EXIT.OK;
}
