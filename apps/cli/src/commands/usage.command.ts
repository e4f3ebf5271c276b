import type { ScopeBudget, UsageReport } from '@roundtable/contracts';
import { UsageError } from '../cli-args';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { fmtUsd } from '../format';
import { renderTable } from '../table';
import type { Style } from '../terminal';

const PIPE_WIDTH = 200;

/** A scope's caps in one cell: `50 calls/day, $5.00/day, $100.00 total`; `-` for none. */
export function capsText(caps: ScopeBudget | null): string {
  if (!caps) return '-';
  const parts = [
    caps.max_calls_per_day !== undefined ? `${caps.max_calls_per_day} calls/day` : null,
    caps.max_usd_per_day !== undefined ? `${fmtUsd(caps.max_usd_per_day)}/day` : null,
    caps.max_usd_total !== undefined ? `${fmtUsd(caps.max_usd_total)} total` : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join(', ') : '-';
}

/** The report as a table: a row per team and project, what was spent, what is in flight, the caps beside. */
export function usageLines(r: UsageReport, s: Style, width: number): string[] {
  const lines = [s.dim(`since ${r.since}`)];
  if (!r.rows.length) return [...lines, s.dim('no calls in this time')];
  lines.push(
    ...renderTable(
      [
        { header: 'TEAM' },
        { header: 'PROJECT' },
        { header: 'RUNS', align: 'right' },
        { header: 'CALLS', align: 'right' },
        { header: 'TOKENS', align: 'right' },
        { header: 'USD', align: 'right' },
        { header: 'IN FLIGHT', align: 'right' },
        { header: 'TEAM CAPS' },
        { header: 'PROJECT CAPS' },
      ],
      r.rows.map((row) => [
        row.team,
        row.project,
        String(row.runs),
        String(row.calls),
        String(row.input_tokens + row.output_tokens),
        `${fmtUsd(row.cost_usd)}${row.unpriced_calls ? ` + ${row.unpriced_calls} unpriced` : ''}`,
        row.in_flight.calls ? `${row.in_flight.calls} (${fmtUsd(row.in_flight.cost_usd)})` : '0',
        capsText(row.team_caps),
        capsText(row.project_caps),
      ]),
      s,
      width,
    ),
  );
  return lines;
}

/** `usage [--team T] [--project P] [--since DATE] [--json]` (issue 26): GET /v1/usage. */
export async function usageCommand(ctx: CommandContext): Promise<number> {
  const params = new URLSearchParams();
  for (const name of ['team', 'project', 'since'] as const) {
    const v = ctx.cli.options[name];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !v.trim()) throw new UsageError(`--${name} needs a value`, 'usage');
    params.set(name, v.trim());
  }
  const query = params.toString() ? `?${params.toString()}` : '';
  const report = await ctx.client.getJson<UsageReport>(`/v1/usage${query}`);
  if (ctx.cli.json) {
    printJson(ctx, report);
    return EXIT.OK;
  }
  printLines(ctx, usageLines(report, ctx.style, ctx.tty ? ctx.io.stdout.columns || PIPE_WIDTH : PIPE_WIDTH));
  return EXIT.OK;
}
