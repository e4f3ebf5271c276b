import { seg } from '../api-client';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { fmtConfidence, fmtInt, fmtUsd, fmtWholeSeconds } from '../format';
import { panelShowLines, PanelSummary } from '../panel-show';
import type { RunDetail } from '../poll-events';
import { paintStatus, paintVerdict } from '../terminal';

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** `show <run>`: one run as `key: value` lines; usage beside each cap. */
export async function showCommand(ctx: CommandContext): Promise<number> {
  const run = await ctx.client.getJson<RunDetail & { panel?: PanelSummary }>(`/v1/runs/${seg(ctx.cli.args.run)}`);
  if (ctx.cli.json) {
    printJson(ctx, run);
    return EXIT.OK;
  }
  const s = ctx.style;
  const caps = run.caps ?? {};
  const of = (used: string, cap: number | null, fmt: (n: number) => string) => (cap === null ? used : `${used}/${fmt(cap)}`);
  const u = run.usage;
  const usage = [
    `calls ${of(String(u.calls), num(caps.max_calls), String)}${u.failed_calls ? ` (${u.failed_calls} failed)` : ''}`,
    `tokens ${of(fmtInt(u.tokens), num(caps.max_tokens), fmtInt)} (in ${fmtInt(u.input_tokens)}, out ${fmtInt(u.output_tokens)})`,
    u.cost_usd == null
      ? `cost n/a${num(caps.max_cost_usd) === null ? '' : ` (cap ${fmtUsd(num(caps.max_cost_usd)!)})`}`
      : `cost ${of(fmtUsd(u.cost_usd), num(caps.max_cost_usd), fmtUsd)}${u.unpriced_calls ? ` (+${u.unpriced_calls} unpriced)` : ''}`,
    `time ${of(u.seconds == null ? '-' : fmtWholeSeconds(u.seconds), num(caps.max_seconds), fmtWholeSeconds)}`,
  ].join(', ');
  const rounds = `round ${of(String(run.round), num(caps.max_rounds), String)}, fix round ${of(String(run.fix_round), num(caps.max_fix_rounds), String)}`;
  const verdict = run.verdict ?? run.panel?.recommendation ?? null;
  const lines: [string, string][] = [
    ['run', `${s.bold(run.id)} (${run.workflow})`],
    ['project', run.project],
    ['status', paintStatus(s, run.status)],
    ['stage', run.stage],
    // A panel has no critique rounds or fix rounds: its judges' scores say where it stands.
    ...(run.panel ? panelShowLines(run.panel, s) : [['rounds', rounds] as [string, string]]),
    ['verdict', verdict ? `${paintVerdict(s, verdict)} (confidence ${fmtConfidence(run.verdict ? run.confidence : (run.panel?.confidence ?? null))})` : '-'],
  ];
  if (run.halt_reason) lines.push(['halt reason', s.yellow(run.halt_reason)]);
  // People in the loop: the gate it waits at, the questions it asks, and whether it is solved.
  const people = run as { gate?: { name: string } | null; open_questions?: { id: string; question: string; status: string; answered_by: string | null }[]; solved?: { check: string; ok: boolean }[] };
  if (people.gate) lines.push(['waiting at', s.yellow(`the ${people.gate.name} gate: roundtable approve|reject ${run.id} (an approve token)`)]);
  for (const q of people.open_questions ?? []) {
    lines.push([`  ${q.id}`, q.status === 'open' ? `${q.question} (open: roundtable answer ${run.id} ${q.id} "…")` : `${q.question} (answered by ${q.answered_by})`]);
  }
  if (people.solved?.length) lines.push(['solved', `${people.solved.filter((c) => c.ok).length}/4 checks (${people.solved.map((c) => `${c.check} ${c.ok ? 'yes' : 'no'}`).join(', ')})`]);
  lines.push(['usage', usage]);
  for (const [provider, p] of Object.entries(run.usage_by_provider ?? {})) {
    lines.push([`  ${provider}`, `${p.calls} calls, ${fmtInt(p.input_tokens + p.output_tokens)} tokens, ${p.cost_usd == null ? 'cost n/a' : fmtUsd(p.cost_usd)}`]);
  }
  lines.push(['created', run.created_at ?? '-'], ['started', run.started_at ?? '-'], ['finished', run.finished_at ?? '-']);
  const width = Math.max(...lines.map(([k]) => k.length));
  printLines(
    ctx,
    lines.map(([k, v]) => `${s.dim(`${k}:`.padEnd(width + 1))} ${v}`),
  );
  return EXIT.OK;
}
