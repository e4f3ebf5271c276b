import { seg } from '../api-client';
import { callIdOfLabel, looksLikeLabel, refuseBareLabel } from '../call-label';
import { resolveCallRef } from '../call-ref';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { fmtSeconds, fmtUsd } from '../format';
import type { CallSummary } from '../poll-events';

interface CallDetail extends CallSummary {
  run_id: string;
  repair_of: string | null;
  schema_name: string | null;
  messages: unknown;
  context_refs: string[] | null;
  max_tokens: number | null;
  temperature: number | null;
  response_text: string | null;
  parsed: unknown;
  request_id: string | null;
  argv: string[] | null;
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : JSON.stringify(part))).join('\n');
  }
  return JSON.stringify(content, null, 2);
}

/** `call-show <call>`: the header, then each message under `--- <role>`, then the reply. */
export async function callShowCommand(ctx: CommandContext): Promise<number> {
  const runOption = typeof ctx.cli.options.run === 'string' ? ctx.cli.options.run : undefined;
  refuseBareLabel(ctx.cli.args.call, runOption);
  const { runId, callId: ref } = resolveCallRef(ctx.cli.args.call, runOption);
  const callId = (looksLikeLabel(ref) && (await callIdOfLabel(ctx.client, runId, ref))) || ref;
  const call = await ctx.client.getJson<CallDetail>(`/v1/runs/${seg(runId)}/calls/${seg(callId)}`);
  if (ctx.cli.json) {
    printJson(ctx, call);
    return EXIT.OK;
  }
  const s = ctx.style;
  const outcome = call.status === 'failed' ? s.red('failed') : call.valid === false ? s.red('invalid') : call.status === 'completed' ? s.green('ok') : call.status;
  const lines = [
    `${s.bold(`call ${call.id}`)} of run ${call.run_id}`,
    `${s.cyan(`[${call.stage}]`)} ${call.role} ${call.provider}/${call.model} label=${call.label ?? '-'} attempt=${call.attempt}${call.repair_of ? ` repair_of=${call.repair_of}` : ''}`,
    [
      outcome,
      call.latency_ms == null ? null : fmtSeconds(call.latency_ms),
      `in=${call.input_tokens ?? '?'} out=${call.output_tokens ?? '?'}`,
      call.cost_usd == null ? 'cost=n/a' : fmtUsd(call.cost_usd),
      call.schema_name ? `schema=${call.schema_name}` : null,
      call.temperature == null ? null : `temperature=${call.temperature}`,
      call.max_tokens == null ? null : `max_tokens=${call.max_tokens}`,
    ]
      .filter((x) => x !== null)
      .join(' '),
  ];
  if (call.context_refs?.length) lines.push(`context: ${call.context_refs.join(', ')}`);
  if (call.argv?.length) lines.push(`argv: ${call.argv.join(' ')}`);
  if (call.error) lines.push(s.red(`error${call.error_code ? ` (${call.error_code})` : ''}: ${call.error}`));
  for (const m of Array.isArray(call.messages) ? call.messages : []) {
    const msg = m as { role?: unknown; content?: unknown };
    lines.push('', s.bold(`--- ${String(msg.role ?? 'message')}`), messageText(msg.content));
  }
  if (call.parsed !== null && call.parsed !== undefined) lines.push('', s.bold('--- reply (parsed)'), JSON.stringify(call.parsed, null, 2));
  else if (call.response_text) lines.push('', s.bold('--- reply'), call.response_text);
  printLines(ctx, lines);
  return EXIT.OK;
}
