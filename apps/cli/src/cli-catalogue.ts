/**
 * Every command and option of `roundtable`, with its help text: the one definition the parser (cli-program.ts,
 * on commander) and the help pages (help.ts) are both built from.
 */
export const DEFAULT_API = 'http://127.0.0.1:3000';

export interface OptionSpec {
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
