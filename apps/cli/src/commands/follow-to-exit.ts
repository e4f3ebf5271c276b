import { seg } from '../api-client';
import { DEFAULT_API } from '../cli-args';
import { commandHint, CommandContext } from '../command-context';
import { exitCodeForStatus, EXIT } from '../exit-codes';
import { followRun, FollowMode } from '../follow-run';
import { RunDetail, TERMINAL_RUN_STATUSES } from '../poll-events';

/** Exit code of a process stopped by Ctrl-C (128 + SIGINT), the shell convention. */
export const EXIT_INTERRUPTED = 130;

/** Follows a run to its end and turns the way it ended into the exit code (see exit-codes.ts). */
export async function followToExit(
  ctx: CommandContext,
  runId: string,
  mode: FollowMode,
  extra: { after?: number; autonomy?: number | null } = {},
): Promise<number> {
  const result = await followRun({ client: ctx.client, runId, io: ctx.io, mode, signal: ctx.signal, ...extra });
  let status = result.status;
  if (status === null) {
    if (ctx.signal?.aborted) {
      ctx.io.stderr.write(`stopped following run ${runId}; it keeps running (${commandHint(ctx, `cancel ${runId}`, DEFAULT_API)} stops it)\n`);
      return EXIT_INTERRUPTED;
    }
    // The server ended the stream without a terminal event (204): ask the run itself.
    const run = await ctx.client.getJson<RunDetail>(`/v1/runs/${seg(runId)}`);
    if (!TERMINAL_RUN_STATUSES.has(run.status)) {
      ctx.io.stderr.write(`the event stream ended while run ${runId} is still ${run.status}\n`);
      return EXIT.ERROR;
    }
    status = run.status;
  }
  if (mode === 'pretty') {
    const lines = [`report: ${commandHint(ctx, `report ${runId}`, DEFAULT_API)}`];
    if (status === 'halted') lines.push(`resume: ${commandHint(ctx, `resume ${runId}`, DEFAULT_API)} [--max-calls N …]`);
    ctx.io.stdout.write(lines.map((l) => `${l}\n`).join(''));
  }
  return exitCodeForStatus(status);
}
