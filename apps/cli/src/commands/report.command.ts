import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { seg } from '../api-client';
import { CommandContext, printJson } from '../command-context';
import { EXIT } from '../exit-codes';

/** `report <run> [--out FILE]`: the markdown as the API renders it. */
export async function reportCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.cli.args.run;
  const markdown = await ctx.client.getText(`/v1/runs/${seg(runId)}/report`);
  const out = typeof ctx.cli.options.out === 'string' ? path.resolve(ctx.io.cwd, ctx.cli.options.out) : null;
  if (out) {
    try {
      writeFileSync(out, markdown);
    } catch (err) {
      ctx.io.stderr.write(`cannot write ${out}: ${(err as Error).message}\n`);
      return EXIT.ERROR;
    }
  }
  if (ctx.cli.json) printJson(ctx, out ? { run_id: runId, out } : { run_id: runId, markdown });
  else if (out) ctx.io.stderr.write(`report of run ${runId} written to ${out}\n`);
  else ctx.io.stdout.write(markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return EXIT.OK;
}
