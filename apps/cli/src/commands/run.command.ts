import { DEFAULT_API } from '../cli-args';
import { commandHint, CommandContext, printJson, printLines } from '../command-context';
import { EXIT } from '../exit-codes';
import { loadProjectFile } from '../project-file';
import { followToExit } from './follow-to-exit';

interface SubmittedRun {
  id: string;
  status: string;
  links?: Record<string, string>;
}

/**
 * `run <project.yaml> [--follow]`: the file is parsed here so its `${VAR}`s can be expanded from
 * the user's shell (the API expands none) and its relative paths made absolute.
 */
export async function runCommand(ctx: CommandContext): Promise<number> {
  const config = loadProjectFile(ctx.cli.args['project.yaml'], ctx.io.cwd, ctx.io.env);
  // One Idempotency-Key for this invocation: a submit retried after a timeout makes one run.
  const run = await ctx.client.postJsonIdempotent<SubmittedRun>('/v1/runs', config);
  if (!ctx.cli.options.follow) {
    if (ctx.cli.json) printJson(ctx, run);
    else {
      printLines(ctx, [
        `run ${run.id} ${run.status}`,
        `follow it: ${commandHint(ctx, `events ${run.id}`, DEFAULT_API)}`,
        `inspect it: ${commandHint(ctx, `show ${run.id}`, DEFAULT_API)}`,
      ]);
    }
    return EXIT.OK;
  }
  const autonomy = typeof config.autonomy === 'number' ? config.autonomy : null;
  return followToExit(ctx, run.id, ctx.cli.json ? 'json' : 'pretty', { autonomy });
}
