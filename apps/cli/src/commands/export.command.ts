import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { seg } from '../api-client';
import { CommandContext, printJson } from '../command-context';
import { EXIT } from '../exit-codes';

/** `export <run> [-o FILE]`: the run's record as one JSON file (GET /v1/runs/:id/export), for `verify --file`. */
export async function exportCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.cli.args.run;
  const text = await ctx.client.getText(`/v1/runs/${seg(runId)}/export`);
  const out = typeof ctx.cli.options.out === 'string' ? path.resolve(ctx.io.cwd, ctx.cli.options.out) : null;
  if (!out) {
    ctx.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    return EXIT.OK;
  }
  try {
    // As the api sent it, byte for byte: what is verified is what was served.
    writeFileSync(out, text);
  } catch (err) {
    ctx.io.stderr.write(`cannot write ${out}: ${(err as Error).message}\n`);
    return EXIT.ERROR;
  }
  if (ctx.cli.json) printJson(ctx, { run_id: runId, out });
  else ctx.io.stderr.write(`record of run ${runId} written to ${out}; check it with: roundtable verify --file ${ctx.cli.options.out}\n`);
  return EXIT.OK;
}
