import { seg } from '../api-client';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { fmtSeconds, fmtUsd } from '../format';
import type { CallSummary } from '../poll-events';
import { DEFAULT_TABLE_WIDTH, renderPlainRows, renderTable } from '../table';

const outcome = (c: CallSummary): string => (c.status === 'failed' ? 'failed' : c.valid === false ? 'invalid' : c.status === 'completed' ? 'ok' : c.status);

/**
 * `calls <run> [--role R] [--stage S] [--failed]`: the audit log in issue order. Plain output
 * (tab-separated): id, stage, role, provider/model, label, outcome, seconds, in, out, cost.
 */
export async function callsCommand(ctx: CommandContext): Promise<number> {
  const params = new URLSearchParams();
  const { role, stage, failed } = ctx.cli.options;
  if (typeof role === 'string') params.set('role', role.toLowerCase());
  if (typeof stage === 'string') params.set('stage', stage.toUpperCase());
  if (failed === true) params.set('failed', 'true');
  const query = params.toString() ? `?${params.toString()}` : '';
  const calls = await ctx.client.getJson<CallSummary[]>(`/v1/runs/${seg(ctx.cli.args.run)}/calls${query}`);
  if (ctx.cli.json) {
    printJson(ctx, calls);
    return EXIT.OK;
  }
  const rows = calls.map((c) => [
    c.id,
    c.stage,
    c.role,
    `${c.provider}/${c.model}`,
    c.label ?? '-',
    outcome(c),
    c.latency_ms == null ? '-' : fmtSeconds(c.latency_ms),
    c.input_tokens == null ? '-' : String(c.input_tokens),
    c.output_tokens == null ? '-' : String(c.output_tokens),
    c.cost_usd == null ? 'n/a' : fmtUsd(c.cost_usd),
  ]);
  if (!ctx.tty) {
    printLines(ctx, renderPlainRows(rows));
    return EXIT.OK;
  }
  if (!rows.length) {
    printLines(ctx, [ctx.style.dim('no calls match')]);
    return EXIT.OK;
  }
  const s = ctx.style;
  printLines(
    ctx,
    renderTable(
      [
        { header: 'CALL' },
        { header: 'STAGE', paint: s.cyan },
        { header: 'ROLE' },
        { header: 'MODEL' },
        { header: 'LABEL' },
        { header: 'OUTCOME', paint: (v) => (v === 'ok' ? s.green(v) : v === 'failed' || v === 'invalid' ? s.red(v) : v) },
        { header: 'TIME', align: 'right' },
        { header: 'IN', align: 'right' },
        { header: 'OUT', align: 'right' },
        { header: 'COST', align: 'right' },
      ],
      rows,
      s,
      ctx.io.stdout.columns || DEFAULT_TABLE_WIDTH,
    ),
  );
  return EXIT.OK;
}
