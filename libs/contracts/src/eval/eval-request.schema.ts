import { z } from 'zod';
import { Idea } from '../panel/idea.schema';
import { EvalDifficulty, EvalTaskId, REFERENCE_VERDICTS } from './eval-suite.schema';

/**
 * `POST /v1/evals` (issue 25): a suite's tasks and the configurations to compare, as the CLI sends
 * them after reading `evals/<suite>/`. Every task runs under every configuration as ordinary runs;
 * the api derives the built-in baselines from the first configuration and gives every
 * configuration the same budget per task (`budget`), whatever its own file says.
 *
 * A request, never a policy: a task's `starter` is a server path admitted by the operator's
 * `repos.roots` like any run's `repo`; the hidden tests are code run only in the sandbox, at scoring.
 */

const HiddenFile = z
  .object({
    path: z.string().min(1).max(200).regex(/^(?!\/)(?!.*\.\.)[A-Za-z0-9._/-]+$/, 'a hidden file path is relative, without "..", e.g. test_hidden.py'),
    content: z.string().max(256 * 1024, 'a hidden file is at most 256 KiB'),
  })
  .strict();

export const CodingTaskRequest = z
  .object({
    id: EvalTaskId,
    difficulty: EvalDifficulty,
    objective: z.string().min(1, 'tasks[].objective says what to build'),
    requirements: z.array(z.string().min(1)).min(1),
    test_command: z.string().min(1),
    hidden_command: z.string().min(1),
    /** The repository the run starts from (a server path the operator's repos.roots allows), or none. */
    starter: z.string().min(1).nullable().default(null),
    hidden: z.array(HiddenFile).min(1, 'tasks[].hidden holds the hidden tests (at least one file)').max(20),
  })
  .strict();
export type CodingTaskRequest = z.infer<typeof CodingTaskRequest>;

export const PanelIdeaTaskRequest = z
  .object({ id: EvalTaskId, difficulty: EvalDifficulty, idea: Idea, reference: z.enum(REFERENCE_VERDICTS) })
  .strict();
export type PanelIdeaTaskRequest = z.infer<typeof PanelIdeaTaskRequest>;

/** One configuration file as given (`--configs a.yaml`): a project file without the task's own fields. */
export const EvalConfigRequest = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/, 'configs[].name is letters, digits, . _ - (at most 40), e.g. team or gpt-only'),
    project: z.record(z.string(), z.unknown()),
  })
  .strict();
export type EvalConfigRequest = z.infer<typeof EvalConfigRequest>;

/** The same cap for every configuration, per task: what "equal budget" means. */
export const EvalBudget = z
  .object({
    max_tokens: z.number().int().positive(),
    max_cost_usd: z.number().positive().optional(),
    max_seconds: z.number().positive().default(900),
  })
  .strict();
export type EvalBudget = z.infer<typeof EvalBudget>;

const common = {
  suite: EvalTaskId,
  configs: z.array(EvalConfigRequest).min(1, 'configs names at least one configuration').max(8),
  /** Add the built-in comparisons derived from the first configuration (solo, one provider, vote). */
  baselines: z.boolean().default(true),
  budget: EvalBudget,
  /** The vote baseline's N; by default chosen to fill the budget (eval-configs.ts). */
  vote_samples: z.number().int().min(1).max(9).optional(),
};

export const EvalRequest = z.discriminatedUnion('score', [
  z.object({ ...common, score: z.literal('hidden_tests'), tasks: z.array(CodingTaskRequest).min(1).max(100) }).strict(),
  z.object({ ...common, score: z.literal('verdict'), tasks: z.array(PanelIdeaTaskRequest).min(1).max(100) }).strict(),
]);
export type EvalRequest = z.infer<typeof EvalRequest>;
export type EvalRequestInput = z.input<typeof EvalRequest>;

/** How a configuration of an eval came to be: given, or one of the built-in baselines. */
export const EVAL_CONFIG_KINDS = ['as_configured', 'solo', 'one_provider', 'vote'] as const;
export type EvalConfigKind = (typeof EVAL_CONFIG_KINDS)[number];
