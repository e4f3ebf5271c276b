import { seg } from '../api-client';
import { DEFAULT_API, resumeBody } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { logEndOf } from '../follow-run';
import { followToExit } from './follow-to-exit';

/** `resume <run> [--from STAGE] [--max-… N] [--follow]`: the API answers 202, or 409 when the run is not halted. */
export async function resumeCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.cli.args.run;
  const { follow, ...options } = ctx.cli.options;
  const body = resumeBody(options);
  // Where the log ends before the resume, so --follow draws what the resume does, not the run's history.
  const from = follow ? await logEndOf(ctx.client, runId, ctx.signal) : 0;
  const reply = await ctx.client.postJson<Record<string, unknown>>(`/v1/runs/${seg(runId)}/resume`, body);
  if (follow) return followToExit(ctx, runId, ctx.cli.json ? 'json' : 'pretty', { after: from, throughLog: true });
  if (ctx.cli.json) {
    printJson(ctx, reply);
    return EXIT.OK;
  }
  const what = [body.from ? `from ${body.from}` : null, body.caps ? `caps ${Object.entries(body.caps).map(([k, v]) => `${k}=${v}`).join(' ')}` : null]
    .filter(Boolean)
    .join(', ');
  printLines(ctx, [`run ${runId} resumed${what ? ` (${what})` : ''}`, `inspect it: ${commandHint(ctx, `show ${runId}`, DEFAULT_API)}`]);
  return EXIT.OK;
}
