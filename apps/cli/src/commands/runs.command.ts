import type { RunSummary } from '@roundtable/contracts';
import { intOption } from '../cli-args';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { DEFAULT_TABLE_WIDTH, renderPlainRows, renderTable } from '../table';
import { paintStatus, paintVerdict } from '../terminal';


/** `runs [--status S] [--limit N]`: newest first. Plain output: id, status, stage, verdict, project, created_at (tab-separated). */
export async function runsCommand(ctx: CommandContext): Promise<number> {
  const params = new URLSearchParams();
  const status = ctx.cli.options.status;
  if (typeof status === 'string') params.set('status', status);
  const limit = intOption(ctx.cli.options, 'limit');
  if (limit !== undefined) params.set('limit', String(limit));
  const query = params.toString() ? `?${params.toString()}` : '';
  const runs = await ctx.client.getJson<RunSummary[]>(`/v1/runs${query}`);
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
