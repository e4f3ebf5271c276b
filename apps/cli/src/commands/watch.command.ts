import type { CommandContext } from '../command-context';
import { followToExit } from './follow-to-exit';

/**
 * `watch <run>`: the live view `run --follow` draws, for any run, from its first event: a finished run is
 * replayed, a running one is replayed and then followed. Halts and resumes are followed through: the view
 * ends where the run's log ends, not at its first terminal event.
 */
export async function watchCommand(ctx: CommandContext): Promise<number> {
  return followToExit(ctx, ctx.cli.args.run, ctx.cli.json ? 'json' : 'pretty', { after: 0, throughLog: true });
}
