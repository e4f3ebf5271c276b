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
  /** A string option that may be given more than once; its value is the list, in the order given. */
  repeatable?: boolean;
}

export interface CommandSpec {
  name: string;
  /** Positional arguments, in order, all required. */
  args: string[];
  /** Positional arguments after those, each optional (the command checks which it needs). */
  optional?: string[];
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
      'Without --follow it prints the run id alone (RUN=$(roundtable run p.yaml)) and exits 0; with --follow the exit code tells how the run ended.',
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
      search: { type: 'string', value: 'TEXT', help: "runs whose project name, objective or id holds TEXT (any case; % and _ are literal)" },
      from: { type: 'string', value: 'DATE', help: 'runs created on or after DATE (2026-01-31, or a date-time with its zone: 2026-01-31T12:00:00Z)' },
      to: { type: 'string', value: 'DATE', help: 'runs created on or before DATE (a date takes the whole day, UTC)' },
      cursor: { type: 'string', value: 'C', help: 'the page after the one that printed this next cursor' },
    },
    notes: ['When more runs match than were listed, the next cursor is printed on stderr (`next cursor: C`; with --json too): pass it as --cursor C, with the same filters, for the next page.'],
  },
  {
    name: 'watch',
    args: ['run'],
    summary: 'the live view of any run (as run --follow draws it), from its first event',
    options: {},
    notes: [
      'A finished run is replayed; a running one is replayed, then followed until it ends. Halts that were',
      "resumed and a panel's appeal are followed through: the view ends where the run's log ends.",
      'The exit code tells how the run ended, as for run --follow.',
    ],
  },
  {
    name: 'show',
    args: ['run'],
    summary: "one run: status, stage, verdict, usage against its caps (a panel: the judges' scores and re-vote deltas)",
    options: {},
  },
  {
    name: 'calls',
    args: ['run'],
    summary: "a run's agent calls (the audit log), in the order they were issued",
    options: {
      role: {
        type: 'string',
        value: 'R',
        help: 'only this role (build: proposer, critic, reviser, engineer, validator, reviewer, synthesizer; panel: vc, engineer, pm, customer, competitor, moderator)',
      },
      stage: { type: 'string', value: 'S', help: 'only this stage (build: PROPOSE, CRITIQUE …; panel: ROAST, DEBATE, REVOTE, MODERATE, APPEAL)' },
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
      "A label (C1, P2, I1f1, as `calls` and the report show them) names the run's latest call with that",
      'label: run_ab12/C1, or C1 --run run_ab12.',
    ],
  },
  {
    name: 'report',
    args: ['run'],
    summary: "the run's report (markdown)",
    options: { out: { type: 'string', short: 'o', value: 'FILE', help: 'write it to FILE instead of stdout' } },
  },
  {
    name: 'verify',
    args: [],
    optional: ['run'],
    summary: "recompute a run's hash-chained record: \"intact\" and its head hash, or the first event or call that was changed, is missing or was reordered",
    options: {
      file: { type: 'string', value: 'FILE', help: 'check an export (roundtable export) offline, with no api' },
      'public-key': { type: 'string', value: 'PEM', help: "the operator's Ed25519 public key (PEM file): the signature must be made with it" },
    },
    notes: [
      'verify <run> asks GET /v1/runs/<run>/verify; --file checks an export here, with the same code; with <run> and --public-key the',
      "export is fetched and checked here against that key. Without a key the signature is checked with the key it carries, which shows the",
      "record is as signed, not who signed it. The operator's public key: openssl pkey -in audit.pem -pubout. Exit 0 intact, 4 not intact, 1 an error.",
    ],
  },
  {
    name: 'export',
    args: ['run'],
    summary: "the run's record as one JSON file: events and calls with their hashes, the report with its sha256, the head hash and signature",
    options: { out: { type: 'string', short: 'o', value: 'FILE', help: 'write it to FILE instead of stdout' } },
    notes: ['roundtable verify --file FILE checks it offline; one changed byte in an event, a call or the report fails it.'],
  },
  {
    name: 'resume',
    args: ['run'],
    summary: 'restart a halted run where its last decision stopped, optionally with raised caps',
    options: {
      from: { type: 'string', value: 'STAGE', help: 're-run from this stage (e.g. CRITIQUE)' },
      follow: { type: 'boolean', short: 'f', help: 'stay attached and render what the resume does live until the run ends' },
      ...CAP_OPTIONS,
    },
    notes: [
      'Recorded work is reused, never re-billed. The API answers 409 when the run is not halted.',
      'With --follow the exit code tells how the run ended, as for run --follow.',
    ],
  },
  {
    name: 'fork',
    args: ['run'],
    summary: 'run an ended run again from a stage, with edited inputs: the calls before it are copied, the rest asked live',
    options: {
      from: { type: 'string', value: 'STAGE', help: 'the stage to run again from (e.g. CRITIQUE): every call the run made before it is copied' },
      objective: { type: 'string', value: 'TEXT', help: 'a new objective' },
      requirement: { type: 'string', value: 'TEXT', repeatable: true, help: 'a requirement (repeat: together they are the whole new list)' },
      agent: { type: 'string', value: 'ROLE=P[:M]', repeatable: true, help: "a role's provider and/or model, e.g. critic=anthropic:claude-sonnet-4-5 or critic=:grok-4" },
      edits: { type: 'string', value: 'FILE', help: 'a part of a project file (YAML) laid over the original config; the options above go over it' },
      follow: { type: 'boolean', short: 'f', help: 'stay attached and render the fork live until it ends' },
    },
    notes: [
      'POST /v1/runs/:id/fork. Prints the new run\'s id alone; its page links back to the original, and the original lists its forks.',
      'The copied calls name the call they copy and are not billed again. The edited config is judged as a new submission',
      '(schema and operator policy): the API answers 400 naming the field it refuses, 409 while the run has not ended.',
    ],
  },
  {
    name: 'appeal',
    args: ['run'],
    summary: 'put new evidence before some judges of a finished panel run; they re-score, the verdict stands',
    options: {
      evidence: { type: 'string', value: 'TEXT', repeatable: true, help: 'one item of evidence (repeat for more)' },
      'evidence-id': { type: 'string', value: 'E', repeatable: true, help: "an entry of the ledger of the idea the run judged (E1; repeat, or E1,E2): the api sends '[E1] claim — source'" },
      judge: { type: 'string', value: 'J', repeatable: true, help: 'a judge who re-scores: vc, engineer, pm, customer, competitor (repeat, or J1,J2)' },
      follow: { type: 'boolean', short: 'f', help: "stay attached and render the appeal's events live until it ends" },
      ...CAP_OPTIONS,
    },
    notes: [
      'POST /v1/runs/:id/appeal. The API answers 409 unless the run is a finished panel not yet appealed.',
      'Only the named judges are asked again (the evidence reaches them in an evidence block); the moderator is not:',
      "its GO / ITERATE / NO-GO stands, and the report gains an Appeal section with each judge's old and new score.",
      'An appeal the budget cannot fit asks nobody and the run keeps its appeal (a panel_warning says why).',
      'Caps raise the budget first, for an appeal the budget would refuse.',
    ],
  },
  {
    name: 'idea',
    args: ['action', 'target'],
    optional: ['second', 'third'],
    summary: 'ideas as versioned worksheets: new FILE | edit ID FILE | show ID | versions ID | diff ID A B | log ID --claim … --source … --kind … | panel ID FILE | handoff ID --build FILE | experiment ID FILE',
    options: {
      base: { type: 'string', value: 'N', help: 'edit: the version the edit is laid over (default the latest); a version a panel locked is refused' },
      claim: { type: 'string', value: 'TEXT', help: 'log: what was found' },
      source: { type: 'string', value: 'TEXT', help: 'log: where it comes from' },
      kind: { type: 'string', value: 'K', help: 'log: interview, metric, document or experiment_result' },
      date: { type: 'string', value: 'DATE', help: 'log: when it was found (ISO date; default today, UTC)' },
      supersedes: { type: 'string', value: 'E', help: 'log: the entry this one corrects (E1 …)' },
      version: { type: 'string', value: 'N', help: 'panel: the version the panel judges (default the latest); it is locked by the panel' },
      follow: { type: 'boolean', short: 'f', help: 'panel: stay attached and render the panel live until it ends' },
      build: { type: 'string', value: 'FILE', help: 'handoff: a build project file without objective and requirements (providers, agents, budget, repo, test_command …); ${VAR}s expanded, paths made absolute' },
      panel: { type: 'string', value: 'RUN', help: "handoff, experiment: the panel run to hand on or draft from (default the idea's latest done panel)" },
    },
    notes: [
      'idea new FILE            a worksheet (YAML or JSON: title, problem, target_user, solution, evidence: [E1 …],',
      '                         assumptions, open_risks, or no_evidence_yet: true) as version 1; prints the idea id',
      'idea edit ID FILE        the fields that change, as the next version (copy-on-write); prints it',
      'idea show ID             the latest version, its readiness for a panel, and each version\'s lock and panels',
      'idea versions ID         every version',
      'idea diff ID A B         versions A and B, field by field',
      'idea log ID --claim … --source … --kind …   append a ledger entry; prints its id (E1 …)',
      'idea panel ID FILE       a panel on a version (--version N, default the latest): FILE is a panel project file whose',
      '                         idea is replaced by `idea_ref: { id: ID, version: N }`; the version must be ready; prints the run id',
      "idea handoff ID --build FILE [--panel RUN]   a done panel's GO (or ITERATE's experiment) as a build run: the",
      "                         synthesis gives its objective and requirements, FILE the rest; prints the run id",
      "idea experiment ID FILE [--panel RUN]   a done panel's recommended experiment as a drafted experiment: FILE is an",
      '                         experiment file without preregistration (repo, providers, proposer, interpreter, critic,',
      '                         budget, domain); the proposer drafts the preregistration and the run waits at the',
      "                         preregistration gate (`roundtable approve RUN --gate preregistration`); the decision is",
      "                         logged to the idea's ledger; prints the experiment id, the run id and the next step",
      'A panel runs on a version by reference: `idea_ref: { id: ID, version: N }` in place of `idea` in its project file.',
    ],
  },
  {
    name: 'experiment',
    args: ['action'],
    optional: ['target'],
    summary: 'preregistered experiments: preregister FILE | run ID [--no-follow] | show ID | list [--project P] [--status S]',
    options: {
      'no-follow': { type: 'boolean', help: 'run: print the run id and return instead of following the run to its decision' },
      project: { type: 'string', value: 'P', help: 'list: only experiments of this project' },
      status: { type: 'string', value: 'S', help: 'list: only experiments in this status (draft, locked, decided, rejected)' },
    },
    notes: [
      'experiment preregister FILE   post an experiment file (YAML: workflow: experiment, project, repo, [commit],',
      '                              preregistration {title, hypothesis, expected_result, method, success_criteria,',
      '                              failure_criteria …}, interpreter, critic, providers, budget); ${VAR}s expanded and',
      '                              paths made absolute as for `run`. Prints the id, the hash (first 12), the pinned',
      '                              commit, the criteria and the command that runs it. A refused file (400) lists each issue.',
      'experiment run ID             run the method at the pinned commit (POST /v1/experiments/:id/run): follows the run',
      '                              like run --follow, then prints the decision (PASS, KILL or INCONCLUSIVE) and each criterion.',
      '                              With --no-follow it prints the run id alone. The API answers 409 when the experiment',
      '                              already has a result, its preregistration was altered, it is a draft, or a run is live.',
      'experiment show ID            status, hash, commit, hypothesis, criteria (computed, and the interpreter\'s reading),',
      '                              decision, an override request (never applied), the review, open question, metrics',
      'experiment list               id, project, title, status, decision, created (newest first)',
      'run exits 0 for any decision (KILL and INCONCLUSIVE are results, not errors); a run that failed, halted or was',
      'cancelled exits as for run --follow; a 409 (or any API error) exits 1.',
    ],
  },
  {
    name: 'approve',
    args: ['run'],
    summary: 'approve at the gate the run waits at (criteria, merge): it goes on; needs a token with the approve role',
    options: {
      gate: { type: 'string', value: 'G', help: 'the gate (default: the one the run waits at)' },
      note: { type: 'string', value: 'TEXT', help: 'why, recorded with the decision' },
      edit: { type: 'string', value: 'FILE', help: 'at the criteria gate: the criteria as approved, one per line ("AC2: text" keeps an id; a line without one adds a criterion; a locked id left out is dropped), or a YAML list' },
    },
    notes: ['POST /v1/runs/:id/approvals. The API answers 403 for a token without the approve role (or, with four eyes, the one that submitted the run), 409 when the run waits at no such gate.'],
  },
  {
    name: 'reject',
    args: ['run'],
    summary: 'refuse at the gate the run waits at: at criteria the run halts; at merge nothing is merged',
    options: {
      gate: { type: 'string', value: 'G', help: 'the gate (default: the one the run waits at)' },
      note: { type: 'string', value: 'TEXT', help: 'why, recorded with the decision' },
    },
  },
  {
    name: 'answer',
    args: ['run', 'question', 'text'],
    summary: "answer an open question of a run (Q1 …, as show lists them); a needs_input run goes on once none is open",
    options: {},
    notes: ['POST /v1/runs/:id/answers. The answer enters the next prompt as a person\'s evidence, with who gave it.'],
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
    name: 'eval',
    args: ['suite'],
    summary: 'run an evaluation suite (evals/<suite>) under several configurations at equal budget and compare them; or follow one (eval <eval id>)',
    options: {
      configs: { type: 'string', value: 'A,B', help: 'configuration files to compare, comma-separated: project files without objective/requirements (required)' },
      'evals-dir': { type: 'string', value: 'DIR', help: 'where the suites are (default evals)' },
      tasks: { type: 'string', value: 'A,B', help: 'only these tasks of the suite' },
      'max-tokens': { type: 'string', value: 'N', help: 'the budget per task, for every configuration alike (default 100000)' },
      'max-cost-usd': { type: 'string', value: 'X', help: 'the budget per task in USD, for every configuration alike' },
      'max-seconds': { type: 'string', value: 'N', help: 'the time cap of each run (default 900)' },
      'no-baselines': { type: 'boolean', help: 'compare only the given configurations (no solo, one-provider and vote baselines)' },
      'vote-samples': { type: 'string', value: 'N', help: 'the vote baseline\'s N (default: as many as the budget holds, at most 5)' },
      out: { type: 'string', value: 'DIR', help: 'where eval.json and plot.svg are written (default runs/evals/<id>)' },
      'poll-ms': { type: 'string', value: 'N', help: 'how often the progress is asked for (default 1000)' },
      grader: { type: 'string', value: 'PROVIDER', help: 'eval panel --grader P: grade the panel golden set with a real model instead (not through the API)' },
      model: { type: 'string', value: 'M', help: 'with --grader: the grader model' },
      config: { type: 'string', value: 'FILE', help: 'with --grader: the project file declaring the grading provider' },
      golden: { type: 'string', value: 'DIR', help: 'with --grader: the golden ideas (default test/fixtures/panel-golden)' },
      baseline: { type: 'string', value: 'FILE', help: 'with --grader: the stored baseline (default <golden>/grader-baseline.json)' },
      'write-baseline': { type: 'boolean', help: "with --grader: store this run's averages as the new baseline" },
      'timeout-s': { type: 'string', value: 'N', help: 'with --grader: give up on one grading call after N seconds (default 120)' },
    },
    notes: [
      'Every task runs under every configuration as ordinary runs (recorded, budgeted, in the workbench), and the',
      'api adds three baselines derived from the first configuration, all at the same budget per task: its engineer',
      'alone (solo: one call, then fix rounds while tests fail), its pipeline with every role on one provider, and a',
      'vote of N solo answers sharing the budget. Each answer is scored with the hidden tests in the sandbox (or a',
      "panel's verdict against the reference). Prints pass rates with 95 % intervals, tokens, cost, wall time, paired",
      'differences (McNemar), and a per-task matrix; writes eval.json and plot.svg. Ctrl-C stops following only.',
      '`eval panel --grader P` is tier 2 of the panel golden set: each transcript graded by a real model from this',
      'machine and compared with the stored baseline (exit 1 when a dimension dropped by 0.5 or more).',
    ],
  },
  {
    name: 'audit',
    args: ['kind'],
    summary: 'the bias audit across recorded runs (kind: bias): flags first, then the critics and the panel judges',
    options: { project: { type: 'string', value: 'P', help: "only this project's runs (its name)" } },
    notes: [
      'audit bias reads GET /v1/audit/bias: the newest 2000 runs (of --project, when given). It prints the flags first',
      '(never_revises, accepts_failures, herds, self_preference), then per critic its ACCEPT / REVISE / REJECT rates and',
      'how many of its ACCEPTs were followed by failing tests or a failing review, per panel judge its scores (a histogram',
      'over 1…10: · for none), its herd moves at the re-vote and its drift across versions of an idea, then self-preference',
      'per judging role. --json prints the reply as it came. Exit 0 whatever it flags.',
    ],
  },
  {
    name: 'usage',
    args: [],
    summary: 'spending by team and project since a time (default: today, UTC), with the operator\'s caps across runs beside it',
    options: {
      team: { type: 'string', value: 'T', help: 'only this team (a token that is not an admin sees only its own)' },
      project: { type: 'string', value: 'P', help: 'only this project (its name)' },
      since: { type: 'string', value: 'DATE', help: 'an ISO date (its first instant, UTC) or a date-time with its zone' },
    },
    notes: [
      'usage reads GET /v1/usage: per team and project, the runs, calls finished (every try), tokens and USD since',
      '--since, the calls in flight now, and the caps the operator\'s policy sets across runs (budgets.teams,',
      'budgets.projects), which stop a run before a call that would pass them. --json prints the reply as it came.',
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
