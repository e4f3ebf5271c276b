import { commandSpec, DEFAULT_API } from './cli-catalogue';
import { parseWithCommander } from './cli-program';
import { UsageError } from './usage-error';

// Where the commands and the tests have always taken them from.
export { DEFAULT_API } from './cli-catalogue';
export { UsageError } from './usage-error';

export type OptionValues = Record<string, string | string[] | boolean | undefined>;

export interface ParsedCli {
  /** null: no command given (`roundtable`, `roundtable --help`). */
  command: string | null;
  /** Positional arguments after the command, by the spec's names. */
  args: Record<string, string>;
  options: OptionValues;
  api: string;
  token: string | undefined;
  json: boolean;
  help: boolean;
}

/**
 * Parses argv (without node and the script) with commander, the program built from COMMANDS by
 * cli-program.ts. Global options may stand anywhere; each command accepts only its own options, so a
 * misspelt flag is an error rather than silently ignored. The positional counts are checked here, not by
 * commander, so that `show --help` is help, not a missing argument, and the messages name the arguments.
 */
export function parseCli(argv: string[], env: Record<string, string | undefined> = {}): ParsedCli {
  const parsed = parseWithCommander(argv);
  const globals = parsed.globals;
  const help = globals.help === true;
  let name = parsed.command;
  let positionals = parsed.positionals;
  if (name === 'help') {
    // `roundtable help [command]` is `roundtable [command] --help`.
    const topic = positionals[0] ?? null;
    if (topic !== null && !commandSpec(topic)) throw new UsageError(`unknown command ${topic}`);
    return { command: topic, args: {}, options: {}, api: DEFAULT_API, token: undefined, json: false, help: true };
  }
  const spec = name === null ? undefined : commandSpec(name);
  if (name !== null && !spec) throw new UsageError(`unknown command ${name}`);
  if (!spec) [name, positionals] = [null, []];

  const args: Record<string, string> = {};
  if (spec && !help) {
    if (positionals.length < spec.args.length) {
      throw new UsageError(`${spec.name} needs ${spec.args.map((a) => `<${a}>`).join(' ')}`, spec.name);
    }
    const names = [...spec.args, ...(spec.optional ?? [])];
    if (positionals.length > names.length) {
      throw new UsageError(`unexpected argument ${positionals[names.length]} for ${spec.name}`, spec.name);
    }
    names.forEach((a, i) => {
      if (positionals[i] !== undefined) args[a] = positionals[i];
    });
  }

  const api = (typeof globals.api === 'string' ? globals.api : env.ROUNDTABLE_API || DEFAULT_API).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(api)) throw new UsageError(`--api must be an http(s) URL, e.g. ${DEFAULT_API} (got ${api || 'nothing'})`, name);
  const token = typeof globals.token === 'string' ? globals.token : env.ROUNDTABLE_TOKEN || undefined;
  return { command: name, args, options: parsed.options, api, token, json: globals.json === true, help };
}

/** A whole number ≥ min from a string option, or undefined when the option was not given. */
export function intOption(values: OptionValues, name: string, min = 1): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw.trim()) || Number(raw) < min) {
    throw new UsageError(`--${name} needs a whole number${min > 0 ? ` of at least ${min}` : ' (0 or more)'}, got ${String(raw)}`);
  }
  return Number(raw);
}

/** A positive number (decimals allowed) from a string option. */
export function positiveNumberOption(values: OptionValues, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(n > 0)) throw new UsageError(`--${name} needs a positive number, got ${String(raw)}`);
  return n;
}

export interface ResumeBody {
  from?: string;
  caps?: {
    max_calls?: number;
    max_tokens?: number;
    max_cost_usd?: number;
    max_seconds?: number;
    max_rounds?: number;
    max_fix_rounds?: number;
  };
}

/** The body of POST /v1/runs/:id/resume from `resume`'s options; caps only when some were given. */
export function resumeBody(values: OptionValues): ResumeBody {
  const body: ResumeBody = {};
  if (typeof values.from === 'string') body.from = values.from.trim().toUpperCase();
  const caps: NonNullable<ResumeBody['caps']> = {
    max_calls: intOption(values, 'max-calls'),
    max_tokens: intOption(values, 'max-tokens'),
    max_cost_usd: positiveNumberOption(values, 'max-cost-usd'),
    max_seconds: intOption(values, 'max-seconds'),
    max_rounds: intOption(values, 'max-rounds'),
    max_fix_rounds: intOption(values, 'max-fix-rounds', 0),
  };
  const given = Object.fromEntries(Object.entries(caps).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length) body.caps = given;
  return body;
}
