import type { RunSummary } from '@roundtable/contracts';
import { intOption, type OptionValues, UsageError } from '../cli-args';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { DEFAULT_TABLE_WIDTH, renderPlainRows, renderTable } from '../table';
import { paintStatus, paintVerdict } from '../terminal';


/** The filters and the page `runs` asks GET /v1/runs for, as its query string. */
export function runsQueryOf(options: OptionValues): string {
  const params = new URLSearchParams();
  const status = options.status;
  if (typeof status === 'string') params.set('status', status);
  const search = options.search;
  if (typeof search === 'string' && search.trim()) params.set('q', search.trim());
  for (const name of ['from', 'to'] as const) {
    const v = options[name];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !DATE_OR_TIME.test(v.trim())) {
      throw new UsageError(`--${name} needs an ISO date (2026-01-31) or a date-time with its zone (2026-01-31T12:00:00Z), got ${String(v)}`, 'runs');
    }
    params.set(name, v.trim());
  }
  const limit = intOption(options, 'limit');
  if (limit !== undefined) params.set('limit', String(limit));
  const cursor = options.cursor;
  if (typeof cursor === 'string') {
    if (!cursor.trim()) throw new UsageError('--cursor needs the cursor an earlier `roundtable runs` printed', 'runs');
    params.set('cursor', cursor.trim());
  }
  return params.toString() ? `?${params.toString()}` : '';
}

/** The shape only: the api judges the date itself (2026-02-30 is its 400, naming the parameter). */
const DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * `runs [--status S] [--search TEXT] [--from DATE] [--to DATE] [--limit N] [--cursor C]`: newest
 * first. Plain output: id, status, stage, verdict, project, created_at (tab-separated). When there
 * are more, `next cursor: C` goes to stderr (stdout stays the rows, or the JSON array).
 */
export async function runsCommand(ctx: CommandContext): Promise<number> {
  const status = ctx.cli.options.status;
  const { body: runs, headers } = await ctx.client.getJsonWithHeaders<RunSummary[]>(`/v1/runs${runsQueryOf(ctx.cli.options)}`);
  const next = headers.get('x-next-cursor');
  if (next) ctx.io.stderr.write(`next cursor: ${next}\n`);
  if (ctx.cli.json) {
    printJson(ctx, runs);
    return EXIT.OK;
  }
  const rows = runs.map((r) => [r.id, r.status, r.stage, r.verdict ?? '-', r.project, r.created_at ?? '-']);
  if (!ctx.tty) {
    printLines(ctx, renderPlainRows(rows));
    return EXIT.OK;
  }
  if (!rows.length) {
    printLines(ctx, [ctx.style.dim(`no runs${typeof status === 'string' ? ` with status ${status}` : ''}`)]);
    return EXIT.OK;
  }
  const s = ctx.style;
  printLines(
    ctx,
    renderTable(
      [
        { header: 'RUN' },
        { header: 'STATUS', paint: (v) => paintStatus(s, v) },
        { header: 'STAGE' },
        { header: 'VERDICT', paint: (v) => (v === '-' ? v : paintVerdict(s, v)) },
        { header: 'PROJECT' },
        { header: 'CREATED' },
      ],
      rows,
      s,
      ctx.io.stdout.columns || DEFAULT_TABLE_WIDTH,
    ),
  );
  return EXIT.OK;
}
