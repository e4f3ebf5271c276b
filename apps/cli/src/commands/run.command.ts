import { CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { loadProjectFile } from '../project-file';
import { followToExit } from './follow-to-exit';

interface SubmittedRun {
  id: string;
  status: string;
  links?: Record<string, string>;
}

/**
 * `run <project.yaml> [--follow]`: prints the new run's id alone, or follows it. The file is parsed here so its `${VAR}`s can be expanded from
 * the user's shell (the API expands none) and its relative paths made absolute.
 */
export async function runCommand(ctx: CommandContext): Promise<number> {
  const config = loadProjectFile(ctx.cli.args['project.yaml'], ctx.io.cwd, ctx.io.env);
  // One Idempotency-Key for this invocation: a submit retried after a timeout makes one run.
  const run = await ctx.client.postJsonIdempotent<SubmittedRun>('/v1/runs', config);
  if (!ctx.cli.options.follow) {
    // The run id alone, as the README and --help promise: `RUN=$(roundtable run p.yaml)` then `roundtable watch "$RUN"`.
    if (ctx.cli.json) printJson(ctx, run);
    else printLines(ctx, [run.id]);
    return EXIT.OK;
  }
  const autonomy = typeof config.autonomy === 'number' ? config.autonomy : null;
  return followToExit(ctx, run.id, ctx.cli.json ? 'json' : 'pretty', { autonomy });
}
