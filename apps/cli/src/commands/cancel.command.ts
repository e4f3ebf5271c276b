import { seg } from '../api-client';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';

/** `cancel <run>`: asks the run to stop between steps; calls already in flight finish and are recorded. */
export async function cancelCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.cli.args.run;
  const reply = await ctx.client.postJson<Record<string, unknown>>(`/v1/runs/${seg(runId)}/cancel`, {});
  if (ctx.cli.json) printJson(ctx, reply);
  else printLines(ctx, [`cancel requested for run ${runId}: it stops between steps; calls in flight finish and are recorded`]);
  return EXIT.OK;
}
