import { seg } from '../api-client';
import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { forkBody } from '../fork-body';
import { loadProjectFile } from '../project-file';
import { followToExit } from './follow-to-exit';

interface ForkedRun {
  id: string;
  forked_from: { run_id: string; stage: string; copied_calls: number };
}

/**
 * `fork <run> --from STAGE [--objective T] [--requirement T …] [--agent ROLE=PROVIDER[:MODEL] …] [--edits FILE] [--follow]`:
 * a new run from that stage of an ended run. Prints the new run's id alone (as `run` does), or follows it.
 * The edits file is read here, its `${VAR}`s expanded from this shell and its paths made absolute, as a project file is.
 */
export async function forkCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.cli.args.run;
  const { follow, edits: file, ...options } = ctx.cli.options;
  const body = forkBody(options, typeof file === 'string' ? loadProjectFile(file, ctx.io.cwd, ctx.io.env) : {});
  const fork = await ctx.client.postJson<ForkedRun>(`/v1/runs/${seg(runId)}/fork`, body);
  if (follow) return followToExit(ctx, fork.id, ctx.cli.json ? 'json' : 'pretty', {});
  // The new run's id alone, as `run` prints it: `FORK=$(roundtable fork …)` then `roundtable watch "$FORK"`.
  if (ctx.cli.json) printJson(ctx, fork);
  else printLines(ctx, [fork.id]);
  return EXIT.OK;
}
