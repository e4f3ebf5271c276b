import type { ApiClient } from './api-client';
import type { ParsedCli } from './cli-args';
import { CliIo, isTty, Style, styleFor } from './terminal';

/** What every command gets: the parsed command line, the API client and where to write. */
export interface CommandContext {
  cli: ParsedCli;
  client: ApiClient;
  io: CliIo;
  style: Style;
  /** stdout is a terminal: tables and redraws are allowed. */
  tty: boolean;
  /** Aborted on Ctrl-C, so a follow can stop cleanly. */
  signal?: AbortSignal;
}

export function makeContext(cli: ParsedCli, client: ApiClient, io: CliIo, signal?: AbortSignal): CommandContext {
  return { cli, client, io, style: styleFor(io.stdout, io.env), tty: isTty(io.stdout), signal };
}

export function printLines(ctx: CommandContext, lines: string[]): void {
  if (lines.length) ctx.io.stdout.write(lines.map((l) => `${l}\n`).join(''));
}

/** `--json`: one JSON document on stdout. */
export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `roundtable report run_x --api http://…`: a hint that works as typed, naming --api only when it is not the default. */
export function commandHint(ctx: CommandContext, command: string, defaultApi: string): string {
  const api = ctx.client.api !== defaultApi && ctx.client.api !== (ctx.io.env.ROUNDTABLE_API ?? '').replace(/\/+$/, '') ? ` --api ${ctx.client.api}` : '';
  return `roundtable ${command}${api}`;
}
