import { intOption } from '../cli-args';
import type { CommandContext } from '../command-context';
import { followToExit } from './follow-to-exit';

/** `events <run> [--after N]`: every event as it arrives, until the terminal one. */
export async function eventsCommand(ctx: CommandContext): Promise<number> {
  const after = intOption(ctx.cli.options, 'after', 0) ?? 0;
  return followToExit(ctx, ctx.cli.args.run, ctx.cli.json ? 'json' : 'lines', { after });
}
