import { z } from 'zod';
import { ExperimentDomain } from '../experiment/preregistration.schema';
import { BuildRole } from '../run/run-vocabulary';
import { MAX_FILES_PER_REQUEST } from '../agent/files-requested.schema';
import { SandboxConfig } from './sandbox-config.schema';
import { CLI_NAMES } from '../policy/operator-policy.schema';

/** A provider name is a queue-name suffix (`agent.<name>`) and so a Redis key: keep it simple. */
const ProviderName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'provider names are lowercase letters, digits, _ or -, starting with a letter');

const ApiKeyEnv = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'api_key_env names an environment variable (e.g. ANTHROPIC_API_KEY), not the key itself');

/**
 * How the provider-worker consumes this provider's `agent.<name>` queue: a BullMQ rate limit
 * (at most `max` calls started per `duration_ms`, across all workers) and this worker's
 * concurrency. Read from the most recent run that names the provider when the queue starts.
 */
const QueueLimits = {
  rate_limit: z.object({ max: z.number().int().positive(), duration_ms: z.number().int().positive() }).strict().optional(),
  concurrency: z.number().int().positive().optional(),
};

export const ReplayProviderConfig = z
  .object({
    type: z.literal('replay'),
    /** YAML cassette; relative to the project file, absolute once the config is posted. */
    cassette: z.string().min(1),
    /** Artificial latency per call, for demos and benchmarks. */
    latency_ms: z.number().int().min(0).default(0),
    ...QueueLimits,
  })
  .strict();

const ApiProviderBase = {
  api_key_env: ApiKeyEnv,
  base_url: z.string().url().optional(),
  ...QueueLimits,
};
export const AnthropicProviderConfig = z.object({ type: z.literal('anthropic'), ...ApiProviderBase }).strict();
export const OpenAiCompatProviderConfig = z.object({ type: z.literal('openai_compat'), ...ApiProviderBase }).strict();
export const GeminiProviderConfig = z.object({ type: z.literal('gemini'), ...ApiProviderBase }).strict();
export const OllamaProviderConfig = z
  .object({ type: z.literal('ollama'), host: z.string().url().default('http://localhost:11434'), ...QueueLimits })
  .strict();
export const CliProviderConfig = z
  .object({
    type: z.literal('cli'),
    cli: z.enum(CLI_NAMES),
    // Which program runs on a worker is the operator's decision, never a project file's.
    binary: z
      .undefined({ error: 'a project names its CLI (cli: claude), never a path: where the binary is on the provider-worker is the operator\'s policy (cli.binaries in ROUNDTABLE_POLICY, or ROUNDTABLE_<CLI>_BIN)' })
      .optional(),
    ...QueueLimits,
  })
  .strict();

export const ProviderConfig = z.discriminatedUnion('type', [
  ReplayProviderConfig,
  AnthropicProviderConfig,
  OpenAiCompatProviderConfig,
  GeminiProviderConfig,
  OllamaProviderConfig,
  CliProviderConfig,
]);
export type ProviderConfig = z.infer<typeof ProviderConfig>;
export const PROVIDER_TYPES = ['replay', 'anthropic', 'openai_compat', 'gemini', 'ollama', 'cli'] as const;

/**
 * Why a model id is unsafe to pass on, or null when it is fine. The id reaches a CLI's command
 * line as the value after `--model`/`-m` (a leading `-` is read as a flag by strict parsers)
 * and Gemini's URL path (`models/<id>:generateContent`), where a `..` segment, `?`, `#`, `%` or
 * `\` could point a keyed request at another path of the official host. Ids in use
 * (`claude-sonnet-4-5`, `gpt-5.1`, `llama3.1:8b`, `hf.co/org/model:Q4_K_M`,
 * `models/gemini-2.5-flash`, `claude@20240620`) have none of that. Exported so the
 * provider-worker can check the id its call row holds again before it acts.
 */
export function modelIdProblem(id: string): string | null {
  const shown = JSON.stringify(id).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  if (id === '') return 'is empty; name the model, e.g. claude-sonnet-4-5';
  if (id.startsWith('-')) return `${shown} starts with "-", which a CLI would read as a flag; a model id starts with a letter or digit`;
  if (/[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(id)) return `${shown} holds whitespace or a control character; a model id is one word, such as gpt-5.1`;
  const bad = /[?#%\\]/.exec(id);
  if (bad) return `${shown} holds "${bad[0]}", which would change the URL the model is asked at; a model id has no ?, #, % or \\`;
  if (id.split('/').some((seg) => seg === '..' || seg === '.')) return `${shown} has a "." or ".." path segment, which would move the request to another URL path`;
  return null;
}

/** A model id: `field` names it in the message (a config issue's path names the role). */
const ModelId = (field: string) =>
  z.string().superRefine((id, ctx) => {
    const why = modelIdProblem(id);
    if (why) ctx.addIssue({ code: 'custom', message: `${field} ${why}` });
  });

export const AgentConfig = z
  .object({
    provider: ProviderName,
    model: ModelId('model'),
    effort: z.enum(['low', 'medium', 'high']).optional(),
    mode: z.enum(['answer', 'agent']).default('answer'),
    max_turns: z.number().int().min(1).optional(),
    /** A provider used when this one is exhausted or failing; the switch is a recorded decision. */
    fallback: ProviderName.optional(),
    /** The model asked of the fallback provider; default: the same model name. */
    fallback_model: ModelId('fallback_model').optional(),
    timeout_s: z.number().positive().default(180),
    max_tokens: z.number().int().positive().default(4096),
    temperature: z.number().min(0).max(2).default(0.2),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfig>;

export const ProviderCaps = z
  .object({
    max_calls: z.number().int().positive().optional(),
    max_tokens: z.number().int().positive().optional(),
    max_cost_usd: z.number().positive().optional(),
  })
  .strict();
export type ProviderCaps = z.infer<typeof ProviderCaps>;

export const BudgetConfig = z
  .object({
    max_rounds: z.number().int().min(1).default(3),
    max_fix_rounds: z.number().int().min(0).default(1),
    max_calls: z.number().int().positive().default(16),
    max_tokens: z.number().int().positive().default(200_000),
    max_cost_usd: z.number().positive().optional(),
    max_seconds: z.number().positive().default(900),
    per_provider: z.record(ProviderName, ProviderCaps).default({}),
  })
  .strict();
export type BudgetConfig = z.infer<typeof BudgetConfig>;

/**
 * Reading before writing (issue 4): on an existing repository the critic, engineer and
 * validator may ask for files before they answer. Each request is an LLM call and counts
 * against the budget; these bound how often and how much.
 */
export const FileRequestsConfig = z
  .object({
    /** Request rounds per answer (C1, I1, R1 …); 0 turns reading off. */
    max_rounds: z.number().int().min(0).max(5).default(2),
    /** Paths honoured per request; more are refused with a note, not read. */
    max_files: z.number().int().min(1).max(MAX_FILES_PER_REQUEST).default(8),
    /** A longer file is cut here and marked as cut. */
    max_bytes_per_file: z.number().int().min(256).max(1024 * 1024).default(32 * 1024),
  })
  .strict();
export type FileRequestsConfig = z.infer<typeof FileRequestsConfig>;

/**
 * What the orchestrator will do with a role's output (seed §4): `workspace` none (no file tree,
 * no file requests), read (the tree, and file requests where reading is offered) or write (its
 * files are applied: the engineer's alone); `run_tests` is reserved for agent-mode tool calls
 * (role-permissions.ts mayRunTests). Read through permissionOf(), which fills a missing role.
 */
export const RolePermission = z
  .object({ workspace: z.enum(['none', 'read', 'write']), run_tests: z.boolean().default(false) })
  .strict();
export type RolePermission = z.infer<typeof RolePermission>;

/**
 * Roles a build may leave without an agent. The reviewer stays a BuildRole (so its calls,
 * prompt, schema and permissions are typed like every other role's) and only its agent is
 * optional here: the alternative, a role outside BuildRole, would need a second role type in
 * every call, record and filter that carries one.
 */
export const OPTIONAL_BUILD_ROLES = ['reviewer'] as const satisfies readonly BuildRole[];
type OptionalBuildRole = (typeof OPTIONAL_BUILD_ROLES)[number];
const requiredRoles = BuildRole.options.filter((r): r is Exclude<BuildRole, OptionalBuildRole> => !(OPTIONAL_BUILD_ROLES as readonly string[]).includes(r));

const BuildAgents = z
  .object({
    ...(Object.fromEntries(requiredRoles.map((r) => [r, AgentConfig])) as Record<Exclude<BuildRole, OptionalBuildRole>, typeof AgentConfig>),
    /** Optional second, local review of the implementation after the validator's (seed §4). */
    reviewer: AgentConfig.optional(),
  })
  .strict();

/**
 * People in the loop (issue 21): the gates a build run waits at for a person with the `approve`
 * role — `criteria` once the acceptance criteria are locked (before anything is implemented),
 * `merge` before the run branch is merged into the original repository.
 */
export const BUILD_GATES = ['criteria', 'merge'] as const;
export const BuildGate = z.enum(BUILD_GATES, { message: `a gate is one of ${BUILD_GATES.join(', ')}` });
export type BuildGate = z.infer<typeof BuildGate>;

/** How an approved run branch enters the original repository: never forced. */
export const MergeConfig = z
  .object({
    /** The branch of the original repository the run branch is merged into. */
    into: z.string().min(1, 'merge.into names the branch to merge into, e.g. main').regex(/^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]+$/, 'merge.into is a branch name such as main or release/1.2 (letters, digits, . _ / -; no "..", not starting with "-")'),
    strategy: z.enum(['ff', 'merge', 'squash']).default('merge'),
  })
  .strict();
export type MergeConfig = z.infer<typeof MergeConfig>;

/**
 * Experiments a build may draft (issue 24): at autonomy 3, a critique's NEEDS_EXPERIMENT drafts a
 * preregistration (the build's proposer, or `proposer` here, writes it) that waits at its gate for a person, is run,
 * read by `interpreter` and reviewed by `critic` on another provider; its decision answers the
 * critique's open question and the build goes on. Without this block it stays an open question.
 */
export const BuildExperimentsConfig = z
  .object({
    /** Who drafts the preregistration; default: the build's proposer. */
    proposer: AgentConfig.optional(),
    interpreter: AgentConfig,
    critic: AgentConfig,
    budget: z
      .object({ max_calls: z.number().int().positive(), max_tokens: z.number().int().positive(), max_cost_usd: z.number().positive(), max_seconds: z.number().positive() })
      .partial()
      .strict()
      .optional(),
  })
  .strict()
  .refine((e) => e.critic.provider !== e.interpreter.provider, {
    path: ['critic', 'provider'],
    message: "the experiment's critic reviews the interpreter's reading from another provider; give it a provider other than the interpreter's",
  });
export type BuildExperimentsConfig = z.infer<typeof BuildExperimentsConfig>;

export const ProjectConfig = z
  .object({
    workflow: z.enum(['build']).default('build'),
    project: z.string().min(1, 'project names the project (e.g. dd-demo)'),
    objective: z.string().min(1, 'objective says what to build'),
    requirements: z.array(z.string().min(1)).default([]),
    /** Any directory or git repository; omitted for a greenfield run. */
    repo: z.string().min(1).nullish(),
    /**
     * `team` (default): the debate (proposer, critic, reviser), then implement, test and fix, the
     * validator's review and the synthesizer's report. `solo` (issue 25, the evaluation's baseline):
     * the engineer alone works from the objective and requirements (locked as the criteria at
     * start), then the tests and the fix rounds; no other role is asked, and the report is the
     * fact-only one. A solo run opens no gate, so `approvals` is refused with it (load-project-config.ts
     * checkSolo), as is autonomy below 2 (solo's only step is writing).
     */
    pipeline: z.enum(['team', 'solo']).default('team'),
    /** 0 advise, 1 propose, 2 write to the workspace and run tests, 3 also merge a solved run without a person. */
    autonomy: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).default(2),
    /** Where the run waits for a person's approval (BUILD_GATES); none by default. */
    approvals: z.array(BuildGate).default([]),
    /** A wait at a gate longer than this ends the run as halted, with the reason; unset: it waits as long as it takes. */
    approval_timeout_s: z.number().positive().optional(),
    /** Where an approved (or, at autonomy 3, solved) run branch is merged; unset: the branch is left for a person. */
    merge: MergeConfig.optional(),
    /** NEEDS_EVIDENCE / NEEDS_EXPERIMENT from the critic: `end` the run with an open question (default), or `ask` a person and wait for the answer. */
    on_needs_evidence: z.enum(['end', 'ask']).default('end'),
    /** `trading`: the proposer gets the domain's rules, and every critique carries the fifteen-item TradingCritique checklist (issue 24). */
    domain: ExperimentDomain.default('general'),
    experiments: BuildExperimentsConfig.optional(),
    budget: BudgetConfig.default(BudgetConfig.parse({})),
    providers: z.record(ProviderName, ProviderConfig).refine((p) => Object.keys(p).length > 0, 'at least one provider is required'),
    agents: BuildAgents,
    /** Per role; a role left out (or the whole map) gets DEFAULT_ROLE_PERMISSIONS (role-permissions.ts). */
    permissions: z.partialRecord(BuildRole, RolePermission).optional(),
    on_unresolved: z.enum(['implement', 'halt']).default('implement'),
    test_command: z.string().min(1).optional(),
    test_timeout_s: z.number().positive().default(120),
    sandbox: SandboxConfig,
    file_requests: FileRequestsConfig.default(FileRequestsConfig.parse({})),
  })
  .strict();
export type ProjectConfig = z.infer<typeof ProjectConfig>;
export type ProjectConfigInput = z.input<typeof ProjectConfig>;
