import { z } from 'zod';
import { AgentConfig, BudgetConfig, ProjectConfig } from '../config/project-config.schema';
import type { ExperimentSource } from './experiment-replies.schema';
import { Preregistration } from './preregistration.schema';

/**
 * An experiment is a handful of calls: a draft (drafted ones only), a reading, a review, and a
 * repair or two. Same caps and checks as any run, smaller defaults.
 */
export const EXPERIMENT_DEFAULT_MAX_CALLS = 10;
export const EXPERIMENT_DEFAULT_MAX_TOKENS = 200_000;

export const ExperimentBudgetConfig = BudgetConfig.extend({
  max_calls: z.number().int().positive().default(EXPERIMENT_DEFAULT_MAX_CALLS),
  max_tokens: z.number().int().positive().default(EXPERIMENT_DEFAULT_MAX_TOKENS),
});

export const Domain = z.enum(['general', 'trading']);
export type Domain = z.infer<typeof Domain>;

/**
 * The experiment file (`roundtable experiment preregister FILE`, POST /v1/experiments): where the
 * method runs (`repo`, pinned at `commit`, default the repository's HEAD when it is locked), the
 * preregistration, and who reads it — an interpreter and a critic on ANOTHER provider (the
 * critic reviews the reading without being told who wrote it). The repository, like every path,
 * is judged against the operator's policy; the sandbox and its limits are the operator's.
 * A drafted experiment has `draft_from` (the critique or the recommended experiment) and a
 * `proposer` instead of a preregistration: the proposer drafts one, and a person approves it.
 */
export const ExperimentProjectConfig = z
  .object({
    workflow: z.literal('experiment'),
    project: z.string().min(1, 'project names the project (e.g. backtest)'),
    repo: z.string().min(1, 'repo is the git repository the method runs in, a path the operator allows'),
    commit: z
      .string()
      .regex(/^[0-9a-f]{7,40}$/, 'commit is a commit id (7 to 40 hex digits); leave it out to pin the repository HEAD')
      .optional(),
    hypothesis_id: z.string().min(1).optional(),
    /** A drafted experiment's domain; a preregistration says its own. */
    domain: Domain.default('general'),
    preregistration: Preregistration.optional(),
    draft_from: z.string().min(1).max(20_000).optional(),
    proposer: AgentConfig.optional(),
    interpreter: AgentConfig,
    critic: AgentConfig,
    providers: ProjectConfig.shape.providers,
    budget: ExperimentBudgetConfig.default(ExperimentBudgetConfig.parse({})),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    if (!cfg.preregistration && !cfg.draft_from) {
      ctx.addIssue({ code: 'custom', path: ['preregistration'], message: 'give the preregistration (or draft_from, with a proposer, to have one drafted)' });
    }
    if (cfg.preregistration && cfg.draft_from) {
      ctx.addIssue({ code: 'custom', path: ['draft_from'], message: 'give a preregistration or draft_from, not both' });
    }
    if (cfg.draft_from && !cfg.proposer) {
      ctx.addIssue({ code: 'custom', path: ['proposer'], message: 'a drafted experiment needs a proposer (the agent that drafts its preregistration)' });
    }
    if (cfg.critic.provider === cfg.interpreter.provider) {
      ctx.addIssue({
        code: 'custom',
        path: ['critic', 'provider'],
        message: `the critic reviews the interpreter's reading from another provider; both name "${cfg.interpreter.provider}"`,
      });
    }
  });
export type ExperimentProjectConfig = z.infer<typeof ExperimentProjectConfig>;
export type ExperimentProjectConfigInput = z.input<typeof ExperimentProjectConfig>;

/**
 * An experiment run's config as the server writes it on the run row: the file, the experiment it
 * runs, and where a drafted one came from (its decision answers the build's open question, or
 * is logged to the idea's evidence ledger).
 */
export type ExperimentRunConfig = ExperimentProjectConfig & { experiment_id: string; source?: ExperimentSource | null };

export function isExperimentConfig(cfg: { workflow?: unknown }): cfg is ExperimentProjectConfig {
  return cfg.workflow === 'experiment';
}
