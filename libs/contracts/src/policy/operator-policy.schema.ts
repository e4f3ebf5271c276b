import { z } from 'zod';
import { pathUnderRoots } from './path-under-roots';

/**
 * The operator's policy (ROUNDTABLE_POLICY, a YAML file read once at start by every service
 * that enforces it). A project file is a request; this decides what a server may do for it:
 * which CLIs exist, which URL each provider key may be sent to, which directories may be read,
 * whether tests may run outside the sandbox and with which limits and images. The api checks a
 * submission against it (400 naming the field and the policy line), and the worker that acts
 * checks again with its own copy (defence in depth: a row written around the api is refused
 * too). Without a file every service uses DEFAULT_OPERATOR_POLICY: the safe defaults.
 */

/** agy is Google's Antigravity CLI: the Google subscription path now that the gemini CLI refuses individual accounts. */
export const CLI_NAMES = ['claude', 'codex', 'grok', 'gemini', 'agy'] as const;
export type CliName = (typeof CLI_NAMES)[number];

/** Provider types that send an API key: each key variable belongs to exactly one of them. */
export const KEYED_PROVIDER_TYPES = ['anthropic', 'openai_compat', 'gemini'] as const;
export type KeyedProviderType = (typeof KEYED_PROVIDER_TYPES)[number];

/** Where a keyed provider goes when the project sets no base_url: the SDKs' own defaults. */
export const DEFAULT_BASE_URLS: Record<KeyedProviderType, string> = {
  anthropic: 'https://api.anthropic.com',
  openai_compat: 'https://api.openai.com/v1',
  gemini: 'https://generativelanguage.googleapis.com',
};

const EnvName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name (e.g. ANTHROPIC_API_KEY)');

/**
 * `scheme://host[:port][/path]`; the port may be `*` (any port: the tests' fake servers listen on
 * random ones). A URL matches when scheme, host and port are the same and its path starts with
 * the pattern's path, segment by segment.
 */
const UrlPattern = z
  .string()
  .regex(/^(https?):\/\/[^/\s@]+(:(\d+|\*))?(\/\S*)?$/, 'a URL like https://api.openai.com/v1 (port * for any port), without user or password');

const AbsolutePath = z.string().regex(/^\//, 'an absolute path (relative paths are resolved against the policy file before this check)');

export const ApiKeyRule = z
  .object({
    /** The provider type this variable is a key of: a key is never sent by another adapter. */
    provider_type: z.enum(KEYED_PROVIDER_TYPES),
    /** The only URLs this key is sent to. */
    base_urls: z.array(UrlPattern).min(1),
  })
  .strict();
export type ApiKeyRule = z.infer<typeof ApiKeyRule>;

export const DEFAULT_API_KEYS: Record<string, ApiKeyRule> = {
  ANTHROPIC_API_KEY: { provider_type: 'anthropic', base_urls: [DEFAULT_BASE_URLS.anthropic] },
  OPENAI_API_KEY: { provider_type: 'openai_compat', base_urls: [DEFAULT_BASE_URLS.openai_compat] },
  XAI_API_KEY: { provider_type: 'openai_compat', base_urls: ['https://api.x.ai/v1'] },
  GEMINI_API_KEY: { provider_type: 'gemini', base_urls: [DEFAULT_BASE_URLS.gemini] },
  GOOGLE_API_KEY: { provider_type: 'gemini', base_urls: [DEFAULT_BASE_URLS.gemini] },
};

/** The image scripts/build-sandbox-image.sh builds, and the test-runner's default SANDBOX_IMAGE. */
export const DEFAULT_SANDBOX_IMAGE = 'roundtable/sandbox:latest';

export const DEFAULT_SANDBOX_MAX = { memory_mb: 4096, pids: 1024, cpus: 2, timeout_s: 1800 } as const;

/**
 * What one team or one project may spend across all its runs (issue 26): checked by the
 * orchestrator's ledger before every call, with the reservations of calls in flight in every
 * run of the scope, exactly as a run's own caps are. A day is a UTC day.
 */
export const ScopeBudget = z.strictObject(
  {
    /** Agent calls (every try counts) started today, UTC, by all runs of the scope. */
    max_calls_per_day: z.number().int().min(0).optional(),
    /** USD spent or reserved today, UTC (unpriced calls count nothing). */
    max_usd_per_day: z.number().min(0).optional(),
    /** USD spent or reserved ever. */
    max_usd_total: z.number().min(0).optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.join(', ')}: not a cap across runs; a team's or a project's caps are max_calls_per_day, max_usd_per_day and max_usd_total (a run's own caps are the project file's budget)`
        : undefined,
  },
);
export type ScopeBudget = z.infer<typeof ScopeBudget>;

/** The kinds of scope a policy caps, as `budgets.<kind>.<name>` names them. */
export const BUDGET_SCOPES = ['teams', 'projects'] as const;
export type BudgetScopeKind = (typeof BUDGET_SCOPES)[number];

export const OperatorBudgets = z
  .object({
    /** By team (API_TOKENS' fourth field; `default` without one). */
    teams: z.record(z.string().min(1), ScopeBudget).default({}),
    /** By project: the `project:` a project file names (projects.name), across every run that names it. */
    projects: z.record(z.string().min(1), ScopeBudget).default({}),
  })
  .strict();
export type OperatorBudgets = z.infer<typeof OperatorBudgets>;

export const OperatorPolicy = z
  .object({
    /** Environment variables that are provider keys, each with its provider type and URLs. Any other variable is not a key. */
    api_keys: z.record(EnvName, ApiKeyRule).default(DEFAULT_API_KEYS),
    ollama: z
      .object({ hosts: z.array(UrlPattern).default(['http://localhost:11434', 'http://127.0.0.1:11434']) })
      .strict()
      .default({ hosts: ['http://localhost:11434', 'http://127.0.0.1:11434'] }),
    cli: z
      .object({
        /** The CLIs a project may name (`cli: claude`); a project never names a path. */
        allowed: z.array(z.enum(CLI_NAMES)).default([...CLI_NAMES]),
        /**
         * Where each CLI is on the provider-worker: a path or a command on its PATH. Unset: the
         * worker's ROUNDTABLE_<CLI>_BIN, else the CLI's own name on the worker's PATH.
         */
        binaries: z.partialRecord(z.enum(CLI_NAMES), z.string().min(1)).default({}),
        /**
         * The user a CLI child runs as, so it cannot read its worker's environment or memory
         * (/proc/<worker>/environ, /proc/<worker>/mem need the same uid). Used when the worker
         * runs as root; default nobody (65534).
         */
        run_as: z.object({ uid: z.number().int().min(1), gid: z.number().int().min(1) }).strict().default({ uid: 65534, gid: 65534 }),
        /**
         * HOME of a CLI child running as run_as: a directory that user owns, holding the CLIs'
         * logins (~/.claude, ~/.codex, ~/.grok, ~/.gemini; agy's is ~/.gemini/antigravity-cli). Unset: each call's own scratch
         * directory, a fresh empty HOME (a CLI that needs a login there fails as AUTH).
         */
        home: AbsolutePath.optional(),
        /**
         * A worker that is not root cannot give its CLI another user. true lets CLIs run as the
         * worker's own user anyway (a laptop, where the CLI's login is that user's): the child can
         * then read the worker's environment, and the worker says so at every start.
         */
        allow_same_user: z.boolean().default(false),
      })
      .strict()
      .default({ allowed: [...CLI_NAMES], binaries: {}, run_as: { uid: 65534, gid: 65534 }, allow_same_user: false }),
    repos: z
      .object({
        /** Directories under which a project's `repo` may lie (real paths: symlinks resolved). Empty: no repo runs. */
        roots: z.array(AbsolutePath).default([]),
        /**
         * Directories whose repositories a run branch may be merged into (`merge:` in a project,
         * issue 21): merging writes into an operator's directory, where reading only copies out
         * of it. Each must lie under repos.roots. Empty: no merges.
         */
        merge_roots: z.array(AbsolutePath).default([]),
      })
      .strict()
      .superRefine((repos, ctx) => {
        repos.merge_roots.forEach((root, i) => {
          if (!pathUnderRoots(root, repos.roots)) {
            ctx.addIssue({
              code: 'custom',
              path: ['merge_roots', i],
              message: `${root} is not under any of repos.roots [${repos.roots.join(', ')}]: a run can only merge into a repository it may read; add its directory to repos.roots, or remove it from repos.merge_roots`,
            });
          }
        });
      })
      .default({ roots: [], merge_roots: [] }),
    /** Who may approve at a gate is the operator's decision (issue 21); the approve role itself comes from API_TOKENS. */
    approvals: z
      .object({
        /** true: the token that submitted a run cannot approve it (someone else must). */
        four_eyes: z.boolean().default(false),
        /**
         * true: a project at `autonomy: 3` may merge a solved run branch with no person approving.
         * Off by default: autonomy is a project field any write token sets, and a merge writes
         * into the operator's repository, so merging without a person is the operator's call.
         */
        autonomous_merge: z.boolean().default(false),
      })
      .strict()
      .default({ four_eyes: false, autonomous_merge: false }),
    /**
     * The workbench's playground (issue 22): a run's call tried again with an edited prompt,
     * model or provider, billed outside the run. The operator's budget for it, per run; 0: off.
     */
    playground: z
      .object({
        max_calls_per_run: z.number().int().min(0).default(0),
        /** Output tokens a playground call may ask for at most (its max_tokens is capped to it). */
        max_tokens_per_call: z.number().int().positive().default(4096),
      })
      .strict()
      .default({ max_calls_per_run: 0, max_tokens_per_call: 4096 }),
    /** Spending caps across runs, per team and per project (issue 26). A project file cannot lift them: only this file does. */
    budgets: OperatorBudgets.default({ teams: {}, projects: {} }),
    cassettes: z
      .object({
        /** Directories replay cassettes may be read from (real paths). Empty: no replay provider. */
        roots: z.array(AbsolutePath).default([]),
      })
      .strict()
      .default({ roots: [] }),
    sandbox: z
      .object({
        /** Whether a project may ask for `sandbox: process` (tests as a plain subprocess, no sandbox). */
        allow_process: z.boolean().default(false),
        /** Images a project may name (`sandbox.image`); the test-runner also allows its own SANDBOX_IMAGE. */
        images: z.array(z.string().min(1)).default([DEFAULT_SANDBOX_IMAGE]),
        max_memory_mb: z.number().int().min(64).default(DEFAULT_SANDBOX_MAX.memory_mb),
        max_pids: z.number().int().min(16).default(DEFAULT_SANDBOX_MAX.pids),
        /** Also capped by the Docker engine's own CPU count, at the test-runner. */
        max_cpus: z.number().positive().default(DEFAULT_SANDBOX_MAX.cpus),
        max_timeout_s: z.number().positive().default(DEFAULT_SANDBOX_MAX.timeout_s),
        /**
         * The container runtime the sandbox runs under, where the engine has it: `runsc`
         * (gVisor) puts a user-space kernel between the tests and the host's. Unset: the
         * engine's default (runc: namespaces and cgroups on the host's kernel).
         */
        runtime: z.string().regex(/^[a-z][a-z0-9._-]*$/, 'a runtime name the Docker engine knows, e.g. runsc').optional(),
      })
      .strict()
      .default({
        allow_process: false,
        images: [DEFAULT_SANDBOX_IMAGE],
        max_memory_mb: DEFAULT_SANDBOX_MAX.memory_mb,
        max_pids: DEFAULT_SANDBOX_MAX.pids,
        max_cpus: DEFAULT_SANDBOX_MAX.cpus,
        max_timeout_s: DEFAULT_SANDBOX_MAX.timeout_s,
      }),
  })
  .strict();
export type OperatorPolicy = z.infer<typeof OperatorPolicy>;
export type OperatorPolicyInput = z.input<typeof OperatorPolicy>;

/** The policy of a service started without ROUNDTABLE_POLICY. */
export const DEFAULT_OPERATOR_POLICY: OperatorPolicy = OperatorPolicy.parse({});
