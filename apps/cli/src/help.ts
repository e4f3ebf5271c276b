import { CommandSpec, COMMANDS, commandSpec, DEFAULT_API, GLOBAL_OPTIONS } from './cli-catalogue';
import { EXIT } from './exit-codes';

function optionLines(options: CommandSpec['options']): string[] {
  const rows = Object.entries(options).map(([name, o]) => [`${o.short ? `-${o.short}, ` : ''}--${name}${o.value ? ` ${o.value}` : ''}`, o.help]);
  const width = Math.max(0, ...rows.map(([flag]) => flag.length));
  return rows.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`);
}

const usageOf = (c: CommandSpec): string => `roundtable ${c.name}${c.args.map((a) => ` <${a}>`).join('')}${(c.optional ?? []).map((a) => ` [<${a}>]`).join('')}${Object.keys(c.options).length ? ' [options]' : ''}`;

const EXIT_LINES = [
  'Exit codes:',
  `  ${EXIT.OK}    done: the command worked (a followed run ended done)`,
  `  ${EXIT.ERROR}    error: bad usage, an API error, the API unreachable, or a followed run that failed`,
  `  ${EXIT.HALTED}    a followed run ended halted (budget cap or unrecoverable failure) or needs_input`,
  `  ${EXIT.CANCELLED}    a followed run ended cancelled`,
  '  130  interrupted (Ctrl-C) while following; the run itself keeps going',
  '"Followed" means run --follow, events, watch, resume or appeal --follow, and experiment run (a decided experiment',
  'exits 0 whatever its decision); every other command exits 0 or 1.',
];

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'roundtable: submit, follow and inspect Roundtable runs through the REST API.',
    '',
    'Usage: roundtable <command> [arguments] [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Global options (any command):',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'Environment:',
    `  ROUNDTABLE_API    API base URL when --api is not given (default ${DEFAULT_API})`,
    '  ROUNDTABLE_TOKEN  bearer token when --token is not given',
    '  NO_COLOR          set to anything to turn colours off (they are only used on a terminal anyway)',
    '',
    ...EXIT_LINES,
    '',
    'Run `roundtable <command> --help` for a command\'s options.',
  ].join('\n');
}

export function commandHelp(name: string): string {
  const c = commandSpec(name);
  if (!c) return mainHelp();
  const lines = [`Usage: ${usageOf(c)}`, '', `${c.summary.charAt(0).toUpperCase()}${c.summary.slice(1)}.`];
  if (c.notes?.length) lines.push('', ...c.notes);
  if (Object.keys(c.options).length) lines.push('', 'Options:', ...optionLines(c.options));
  lines.push('', 'Global options:', ...optionLines(GLOBAL_OPTIONS), '', ...EXIT_LINES);
  return lines.join('\n');
}
