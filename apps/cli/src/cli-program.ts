import { Command, CommanderError, Option } from 'commander';
import { COMMANDS, GLOBAL_OPTIONS, type OptionSpec } from './cli-catalogue';
import { UsageError } from './usage-error';

/*
 * The command line is parsed by commander: the most used argument parser for node, with no dependencies
 * of its own and small enough to bundle into dist/apps/cli/main.js at no cost. It gets the catalogue's
 * commands and options, and parses only: help is rendered by help.ts from the same catalogue (the pages
 * are ours, word for word), nothing is printed and nothing exits from inside commander, and a mistake comes
 * back as a UsageError for cli.ts to print with its pointer to --help and exit 1.
 */

export interface CommanderParse {
  /** The command word as typed (null: none); cli-args.ts checks it names a command. */
  command: string | null;
  /** Every positional after the command word, unchecked: cli-args.ts matches them to the spec's arguments. */
  positionals: string[];
  /** --api, --token, --json, --help, wherever they stood. */
  globals: Record<string, string | boolean | undefined>;
  /** The command's own options, under their names as typed (`max-calls`, not commander's `maxCalls`). */
  options: Record<string, string | string[] | boolean | undefined>;
}

/** A string option's value is `<value>`, as node's parseArgs wrote it: "option '--status <value>' argument missing". */
const flagsOf = (name: string, o: OptionSpec): string => `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ' <value>' : ''}`;

function withOptions(cmd: Command, specs: Record<string, OptionSpec>): Command {
  for (const [name, o] of Object.entries(specs)) {
    const option = new Option(flagsOf(name, o), o.help);
    // commander keeps the last of a repeated option; a repeatable one collects them all.
    if (o.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    cmd.addOption(option);
  }
  return cmd;
}

/** A fresh program per parse: commander keeps the values it parsed on the command objects. */
function program(onCommand: (cmd: Command) => void): Command {
  const root = new Command('roundtable')
    // Settings every command inherits: no output, no process.exit, no "did you mean", excess positionals
    // counted by cli-args.ts (with the arguments' names in the message), and help as a plain global option.
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined })
    .exitOverride()
    .showSuggestionAfterError(false)
    .allowExcessArguments(true)
    .helpOption(false)
    .helpCommand(false);
  withOptions(root, GLOBAL_OPTIONS);
  for (const spec of [...COMMANDS, { name: 'help', args: ['command'], options: {} }]) {
    const cmd = root.command(spec.name);
    // Optional to commander, so `show --help` is help; cli-args.ts says which one is missing.
    for (const a of [...spec.args, ...('optional' in spec ? (spec.optional ?? []) : [])]) cmd.argument(`[${a}]`);
    withOptions(cmd, spec.options).action((...params: unknown[]) => onCommand(params.at(-1) as Command));
  }
  root.hook('preSubcommand', (_root, sub) => onCommand(sub));
  return root;
}

/** commander's message without its `error: ` lead, which cli.ts replaces with `roundtable: `. */
const usageMessage = (err: CommanderError): string => err.message.replace(/^error: /, '');

export function parseWithCommander(argv: string[]): CommanderParse {
  let cmd: Command | null = null;
  const root = program((c) => (cmd = c));
  try {
    root.parse(argv, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // No command word: commander asks for help, which is cli.ts's to show (and exit 1 unless --help was given).
    if (err.code === 'commander.help') return { command: null, positionals: [], globals: root.opts(), options: {} };
    if (err.code === 'commander.unknownCommand') throw new UsageError(`unknown command ${root.args[0]}`);
    // An unknown option before the command word stops commander before it reaches the command; the help
    // pointer still names the command typed.
    const typed = (cmd as Command | null)?.name() ?? root.args.find((a) => root.commands.some((c) => c.name() === a)) ?? null;
    throw new UsageError(usageMessage(err), typed);
  }
  const ran = cmd as Command | null;
  if (!ran) return { command: null, positionals: [], globals: root.opts(), options: {} };
  const options: CommanderParse['options'] = {};
  for (const o of ran.options) {
    // A `--no-x` flag (experiment run --no-follow) is negatable to commander, which stores false under `x`
    // when it is given and true by default; here it is what it is to the user: `no-x: true` when given.
    if (o.negate) {
      if (ran.getOptionValueSource(o.attributeName()) === 'cli') options[o.long!.slice(2)] = true;
      continue;
    }
    const value = ran.getOptionValue(o.attributeName()) as string | string[] | boolean | undefined;
    if (value !== undefined) options[o.long!.slice(2)] = value;
  }
  return { command: ran.name(), positionals: ran.args, globals: root.opts(), options };
}
