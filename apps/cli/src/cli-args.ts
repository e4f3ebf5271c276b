import { parseArgs } from 'node:util';

/** A mistake on the command line: printed with a pointer to --help, exit 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: string | null = null,
  ) {
    super(message);
  }
}

export const DEFAULT_API = 'http://127.0.0.1:3000';

interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder shown in help for a string option (N, URL, STAGE …). */
  value?: string;
  help: string;
}

export interface CommandSpec {
  name: string;
  /** Positional arguments, in order, all required. */
  args: string[];
  summary: string;
  options: Record<string, OptionSpec>;
  /** Extra lines for `roundtable <command> --help`. */
  notes?: string[];
}

/** Accepted by every command, before or after the command name. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  api: { type: 'string', value: 'URL', help: `API base URL (env ROUNDTABLE_API, default ${DEFAULT_API})` },
  token: { type: 'string', value: 'T', help: 'bearer token sent as Authorization: Bearer T (env ROUNDTABLE_TOKEN)' },
  json: { type: 'boolean', help: 'machine-readable output: one JSON document, or JSON lines for a stream' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
};

const CAP_OPTIONS: Record<string, OptionSpec> = {
  'max-calls': { type: 'string', value: 'N', help: 'raise the cap on agent calls' },
  'max-tokens': { type: 'string', value: 'N', help: 'raise the cap on tokens' },
  'max-cost-usd': { type: 'string', value: 'X', help: 'raise the cap on cost in USD' },
  'max-seconds': { type: 'string', value: 'N', help: 'raise the cap on wall-clock seconds' },
  'max-rounds': { type: 'string', value: 'N', help: 'raise the cap on critique/revise rounds' },
  'max-fix-rounds': { type: 'string', value: 'N', help: 'raise the cap on fix rounds' },
};

export const COMMANDS: CommandSpec[] = [
  {
    name: 'run',
    args: ['project.yaml'],
    summary: 'submit a project file as a new run (${VAR}s expanded from your shell, paths resolved against its directory)',
    options: { follow: { type: 'boolean', short: 'f', help: 'stay attached and render the run live until it ends' } },
    notes: [
      'Without --follow it prints the run id and exits 0; with --follow the exit code tells how the run ended.',
      '${VAR} and ${VAR:-default} are expanded here, from this shell (the API expands none and refuses any "${");',
      'a variable that is unset, with no default, stops the command (exit 1) before anything is posted.',
    ],
  },
  {
    name: 'runs',
    args: [],
    summary: 'list recent runs, newest first',
    options: {
      status: { type: 'string', value: 'S', help: 'only runs in this status (queued, running, done, halted, needs_input, cancelled, failed)' },
      limit: { type: 'string', value: 'N', help: 'at most N runs (1–500, default 50)' },
    },
  },
  { name: 'show', args: ['run'], summary: 'one run: status, stage, verdict, usage against its caps', options: {} },
  {
    name: 'calls',
    args: ['run'],
    summary: "a run's agent calls (the audit log), in the order they were issued",
    options: {
      role: { type: 'string', value: 'R', help: 'only this role (proposer, critic, reviser, engineer, validator, synthesizer)' },
      stage: { type: 'string', value: 'S', help: 'only this stage (PROPOSE, CRITIQUE …)' },
      failed: { type: 'boolean', help: 'only calls that errored or whose reply did not validate' },
    },
  },
  {
    name: 'call-show',
    args: ['call'],
    summary: 'one agent call: the exact messages, the reply and its accounting',
    options: { run: { type: 'string', value: 'RUN', help: 'the run the call belongs to' } },
    notes: [
      'The call can be given as <run>/<call>, or with --run. Without either, the run id is read from the',
      'call id itself: call ids are <run id>-c<n>, so run_ab12-c3 belongs to run_ab12.',
    ],
  },
  {
    name: 'report',
    args: ['run'],
    summary: "the run's report (markdown)",
    options: { out: { type: 'string', short: 'o', value: 'FILE', help: 'write it to FILE instead of stdout' } },
  },
  {
    name: 'resume',
    args: ['run'],
    summary: 'restart a halted run where its last decision stopped, optionally with raised caps',
    options: { from: { type: 'string', value: 'STAGE', help: 're-run from this stage (e.g. CRITIQUE)' }, ...CAP_OPTIONS },
    notes: ['Recorded work is reused, never re-billed. The API answers 409 when the run is not halted.'],
  },
  {
    name: 'cancel',
    args: ['run'],
    summary: 'stop a run between steps (calls in flight finish and are recorded)',
    options: {},
  },
  {
    name: 'call',
    args: ['provider', 'prompt'],
    summary: "one structured call to a provider from this machine: checks its key or CLI login (not through the API)",
    options: {
      config: { type: 'string', value: 'FILE', help: 'the project file declaring the provider (default: built-in anthropic, openai, xai, gemini, ollama, <cli>_cli)' },
      model: { type: 'string', value: 'M', help: 'the model (default: the first role on that provider in FILE, else a built-in one)' },
      pricing: { type: 'string', value: 'FILE', help: 'pricing table (env PRICING_FILE, default examples/pricing.yaml)' },
      'timeout-s': { type: 'string', value: 'N', help: 'give up after N seconds (default 60)' },
    },
    notes: [
      'The one command that does not talk to the API: it runs the provider adapter in this process, with this',
      "shell's API keys and CLI logins, and prints the parsed {answer}, tokens, cost and latency. A missing key",
      '(or CLI binary) is a skip with the reason, exit 0; a provider error prints its own words, exit 1.',
    ],
  },
  {
    name: 'events',
    args: ['run'],
    summary: "print a run's events as they arrive; ends at the terminal event",
    options: { after: { type: 'string', value: 'N', help: 'start after sequence N (default: from the first event)' } },
    notes: ['The exit code tells how the run ended, as for run --follow.'],
  },
];

export const commandSpec = (name: string): CommandSpec | undefined => COMMANDS.find((c) => c.name === name);

export type OptionValues = Record<string, string | boolean | undefined>;

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

type ParseArgsOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

function toParseArgs(specs: Record<string, OptionSpec>): ParseArgsOptions {
  return Object.fromEntries(Object.entries(specs).map(([k, s]) => [k, s.short ? { type: s.type, short: s.short } : { type: s.type }]));
}

/** node's parseArgs messages, minus its advice about `--`, which is rarely what was meant here. */
function usageMessage(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const msg = (e.message ?? String(err)).replace(/\. To specify a positional argument.*$/s, '');
  return msg.charAt(0).toLowerCase() + msg.slice(1);
}

/**
 * Parses argv (without node and the script). Global options may stand anywhere; each command
 * accepts only its own options, so a misspelt flag is an error rather than silently ignored.
 */
export function parseCli(argv: string[], env: Record<string, string | undefined> = {}): ParsedCli {
  // First pass, lenient: find the command name, skipping the values of string options.
  const allOptions: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS };
  for (const c of COMMANDS) Object.assign(allOptions, c.options);
  const loose = parseArgs({ args: argv, options: toParseArgs(allOptions), strict: false, allowPositionals: true });
  const name: string | null = loose.positionals[0] ?? null;
  if (name === 'help') {
    // `roundtable help [command]` is `roundtable [command] --help`.
    const topic = loose.positionals[1] ?? null;
    if (topic !== null && !commandSpec(topic)) throw new UsageError(`unknown command ${topic}`);
    return { command: topic, args: {}, options: {}, api: DEFAULT_API, token: undefined, json: false, help: true };
  }
  const spec = name === null ? undefined : commandSpec(name);
  if (name !== null && !spec) throw new UsageError(`unknown command ${name}`);

  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: toParseArgs({ ...GLOBAL_OPTIONS, ...(spec?.options ?? {}) }),
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw new UsageError(usageMessage(err), name);
  }
  const values = parsed.values as OptionValues;
  const help = values.help === true;
  const positionals = parsed.positionals.slice(name === null ? 0 : 1);

  const args: Record<string, string> = {};
  if (spec && !help) {
    if (positionals.length < spec.args.length) {
      throw new UsageError(`${spec.name} needs ${spec.args.map((a) => `<${a}>`).join(' ')}`, spec.name);
    }
    if (positionals.length > spec.args.length) {
      throw new UsageError(`unexpected argument ${positionals[spec.args.length]} for ${spec.name}`, spec.name);
    }
    spec.args.forEach((a, i) => (args[a] = positionals[i]));
  }

  const api = (typeof values.api === 'string' ? values.api : env.ROUNDTABLE_API || DEFAULT_API).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(api)) throw new UsageError(`--api must be an http(s) URL, e.g. ${DEFAULT_API} (got ${api || 'nothing'})`, name);
  const token = typeof values.token === 'string' ? values.token : env.ROUNDTABLE_TOKEN || undefined;

  const options: OptionValues = { ...values };
  for (const g of Object.keys(GLOBAL_OPTIONS)) delete options[g];
  return { command: name, args, options, api, token, json: values.json === true, help };
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
