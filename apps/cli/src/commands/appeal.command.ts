import { seg } from '../api-client';
import { appealBody } from '../appeal-body';
import { DEFAULT_API } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { logEndOf } from '../follow-run';
import { followToExit } from './follow-to-exit';

/** `appeal <run> --evidence TEXT… --judge J… [--follow]`: the API answers 202, or 409 when the run cannot be appealed. */
export async function appealCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.cli.args.run;
  const body = appealBody(ctx.cli.options);
  // Where the log ends before the appeal, so --follow shows only what the appeal adds.
  const from = ctx.cli.options.follow ? await logEndOf(ctx.client, runId, ctx.signal) : 0;
  const reply = await ctx.client.postJson<Record<string, unknown>>(`/v1/runs/${seg(runId)}/appeal`, body);
  if (ctx.cli.options.follow) return followToExit(ctx, runId, ctx.cli.json ? 'json' : 'pretty', { after: from, throughLog: true });
  if (ctx.cli.json) {
    printJson(ctx, reply);
    return EXIT.OK;
  }
  const items = (body.evidence?.length ?? 0) + (body.evidence_ids?.length ?? 0);
  printLines(ctx, [
    `run ${runId} appealed: ${body.judges.join(', ')} re-score with ${items} item${items === 1 ? '' : 's'} of evidence`,
    `follow it: ${commandHint(ctx, `watch ${runId}`, DEFAULT_API)}`,
  ]);
  return EXIT.OK;
}
