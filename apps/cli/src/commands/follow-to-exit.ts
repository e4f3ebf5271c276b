import { seg } from '../api-client';
import { DEFAULT_API } from '../cli-args';
import { commandHint, CommandContext } from '../command-context';
import { exitCodeForStatus, EXIT } from '../exit-codes';
import { apiUsage, followRun, FollowMode } from '../follow-run';
import { RunDetail, TERMINAL_RUN_STATUSES } from '../poll-events';

/** Exit code of a process stopped by Ctrl-C (128 + SIGINT), the shell convention. */
export const EXIT_INTERRUPTED = 130;

/** Follows a run to its end and turns the way it ended into the exit code (see exit-codes.ts). */
export async function followToExit(
  ctx: CommandContext,
  runId: string,
  mode: FollowMode,
  extra: { after?: number; autonomy?: number | null; throughLog?: boolean } = {},
): Promise<number> {
  const { throughLog, ...rest } = extra;
  // Through the log, a terminal event's closing line waits: the calls up to it (the events' tally, in one
  // view across every part of the log) when more follows, the API's figures when it ends the log (issue 22).
  const holdClosing = throughLog === true && mode === 'pretty';
  let result = await followRun({ client: ctx.client, runId, io: ctx.io, mode, signal: ctx.signal, ...rest, holdClosing });
  // The API ends a stream at the first terminal event; a resumed run (or an appealed panel) has more after
  // it. Asking again after the last sequence seen gets the rest, or 204 once the log holds nothing more.
  // (Polling, an API without /events, reads the run's state, not its log: there is nothing further to ask.)
  while (throughLog && result.transport === 'sse' && result.status !== null && !ctx.signal?.aborted) {
    const { renderer, held } = result;
    const beforeFirst = held ? () => renderer.closingLines(held) : undefined;
    const more = await followRun({ client: ctx.client, runId, io: ctx.io, mode, signal: ctx.signal, ...rest, after: result.lastSequence, holdClosing, renderer, beforeFirst });
    if (more.lastSequence === result.lastSequence) break;
    result = { ...more, status: more.status ?? result.status };
  }
  if (result.held) {
    result.renderer.finalUsage = await apiUsage(ctx.client, runId);
    ctx.io.stdout.write(result.renderer.closingLines(result.held).map((l) => `${l}\n`).join(''));
  }
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
