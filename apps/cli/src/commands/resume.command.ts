import { seg } from '../api-client';
import { DEFAULT_API, resumeBody } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';

/** `resume <run> [--from STAGE] [--max-… N]`: the API answers 202, or 409 when the run is not halted. */
export async function resumeCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.cli.args.run;
  const body = resumeBody(ctx.cli.options);
  const reply = await ctx.client.postJson<Record<string, unknown>>(`/v1/runs/${seg(runId)}/resume`, body);
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
