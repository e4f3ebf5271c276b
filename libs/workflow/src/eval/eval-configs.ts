import {
  AgentConfig,
  BuildRole,
  JudgeRole,
  OPTIONAL_BUILD_ROLES,
  type CodingTaskRequest,
  type EvalBudget,
  type EvalConfigKind,
  type EvalConfigView,
  type EvalRequest,
  type EvalScorer,
  type PanelIdeaTaskRequest,
} from '@roundtable/contracts';
import type { WorkflowName } from '../workflows';

/**
 * The configurations an eval runs (issue 25), at equal budget. Each given configuration runs as
 * it is; with `baselines`, the first one also gives the built-in comparisons: does the team beat
 * one model working alone (`solo`), the same team on one provider (`one-provider`), or the
 * plurality of N solo answers (`vote`)? Every arm gets the same per-task cap: a vote's N runs
 * share it, so no arm wins by spending more (runProjectFor).
 */

/** One configuration of an eval: `project` is its project object before the task's own fields are filled in. */
export interface EvalArm {
  name: string;
  kind: EvalConfigKind;
  /** The configuration it was derived from (itself for `as_configured`). */
  source: string;
  /** Runs per task: 1, or N for `vote`. */
  samples: number;
  project: Record<string, unknown>;
}

/** A configuration the eval cannot run: names the configuration and the field, and what to do. */
export class EvalConfigError extends Error {
  readonly code = 'EVAL_CONFIG_INVALID' as const;

  constructor(
    readonly config: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`configuration "${config}", ${field}: ${reason}`);
    this.name = 'EvalConfigError';
  }
}

/** The workflow each kind of suite runs its tasks as. */
export const EVAL_WORKFLOW = { hidden_tests: 'build', verdict: 'panel' } as const satisfies Record<EvalScorer, WorkflowName>;

/** The vote's N never goes past this: more samples of a capped budget each get too little to finish. */
export const MAX_VOTE_SAMPLES = 5;
/** A solo run may go through this many fix rounds: high, so the budget and not the round count ends it. */
export const SOLO_MAX_FIX_ROUNDS = 10;
/** A run's call cap is raised to at least this, so calls never bind before tokens do. */
export const EVAL_MIN_MAX_CALLS = 40;
/** AgentConfig's own default for max_tokens, read from the schema so the two cannot drift. */
const DEFAULT_AGENT_MAX_TOKENS = AgentConfig.shape.max_tokens.parse(undefined);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The agent at `field` of a configuration's project, or an EvalConfigError saying it is needed. */
function agentAt(config: string, parent: unknown, key: string, field: string, why: string): Json {
  const agent = isObject(parent) ? parent[key] : undefined;
  if (!isObject(agent) || typeof agent.provider !== 'string' || typeof agent.model !== 'string') {
    throw new EvalConfigError(config, field, `${why}; give it an agent with provider and model`);
  }
  return agent;
}

/** An agent that stays on its provider: a fallback names another, which a one-provider arm does not have. */
function withoutFallback(agent: Json): Json {
  const { fallback: _fallback, fallback_model: _fallbackModel, ...rest } = agent;
  return rest;
}

/** The project's providers reduced to one; an error if the project does not declare it. */
function onlyProvider(config: string, project: Json, provider: string, field: string): Json {
  const providers = project.providers;
  if (!isObject(providers) || !isObject(providers[provider])) {
    throw new EvalConfigError(config, field, `names provider "${provider}", which providers does not declare`);
  }
  return { [provider]: providers[provider] };
}

/** Every build role the project has an agent for (the required ones always), each on `agent`. */
function everyBuildRoleOn(project: Json, agent: Json): Json {
  const agents = isObject(project.agents) ? project.agents : {};
  const roles = BuildRole.options.filter((r) => !(OPTIONAL_BUILD_ROLES as readonly string[]).includes(r) || isObject(agents[r]));
  return Object.fromEntries(roles.map((r) => [r, agent]));
}

/**
 * The vote's N: `vote_samples` if given, else as many solo runs as the per-task budget holds,
 * between 1 and 5. A solo answer reserves its prompt estimate plus its max output tokens before it
 * is asked (the ledger, engine/ledger.ts), so a run needs about twice the engineer's max_tokens to
 * be asked once: the prompt's allowance is taken as one more max_tokens.
 */
export function voteSamples(budget: Pick<EvalBudget, 'max_tokens'>, engineerMaxTokens: number, voteSamplesGiven?: number): number {
  if (voteSamplesGiven !== undefined) return voteSamplesGiven;
  return Math.max(1, Math.min(MAX_VOTE_SAMPLES, Math.floor(budget.max_tokens / (2 * engineerMaxTokens))));
}

/** solo, one-provider and vote from a build configuration. */
function buildBaselines(first: EvalRequest['configs'][number], request: EvalRequest): EvalArm[] {
  const { name, project } = first;
  const engineer = agentAt(name, project.agents, 'engineer', 'agents.engineer', 'the solo, one-provider and vote baselines run on the engineer\'s agent');
  const budget = isObject(project.budget) ? project.budget : {};
  // experiments: drafted only at autonomy 3, which an eval's run never has, and its critic must be
  // on another provider than its interpreter, which a one-provider arm cannot give it.
  const { experiments: _experiments, ...base } = project;
  const solo: Json = {
    ...base,
    pipeline: 'solo',
    agents: everyBuildRoleOn(project, engineer),
    budget: { ...budget, max_fix_rounds: SOLO_MAX_FIX_ROUNDS },
  };
  const single = withoutFallback(engineer);
  const provider = single.provider as string;
  const oneProvider: Json = {
    ...base,
    agents: everyBuildRoleOn(project, single),
    providers: onlyProvider(name, project, provider, 'agents.engineer.provider'),
  };
  const maxTokens = typeof engineer.max_tokens === 'number' ? engineer.max_tokens : DEFAULT_AGENT_MAX_TOKENS;
  const n = voteSamples(request.budget, maxTokens, request.vote_samples);
  const vote: Json = { ...solo, budget: { ...budget, max_fix_rounds: 0 } };
  return [
    { name: `${name}.solo`, kind: 'solo', source: name, samples: 1, project: solo },
    { name: `${name}.one-provider`, kind: 'one_provider', source: name, samples: 1, project: oneProvider },
    { name: `${name}.vote`, kind: 'vote', source: name, samples: n, project: vote },
  ];
}

/** one-provider from a panel configuration: every judge and the moderator on the moderator's provider and model. */
function panelBaselines(first: EvalRequest['configs'][number]): EvalArm[] {
  const { name, project } = first;
  const moderator = withoutFallback(agentAt(name, project, 'moderator', 'moderator', 'the one-provider baseline runs every judge on the moderator\'s provider and model'));
  const on = { provider: moderator.provider, model: moderator.model };
  const judges = isObject(project.judges) ? project.judges : {};
  // Each judge keeps its own settings (temperature, max_tokens …); only who answers changes.
  // A judge the file leaves out stays out, for the run's own validation to name.
  const moved = Object.fromEntries(
    JudgeRole.options.filter((j) => isObject(judges[j])).map((j) => [j, { ...withoutFallback(judges[j] as Json), ...on }]),
  );
  const oneProvider: Json = {
    ...project,
    judges: moved,
    moderator,
    providers: onlyProvider(name, project, moderator.provider as string, 'moderator.provider'),
  };
  return [{ name: `${name}.one-provider`, kind: 'one_provider', source: name, samples: 1, project: oneProvider }];
}

/**
 * The arms of an eval, in order: the given configurations (as configured), then, with
 * `baselines`, those derived from the first — solo, one-provider and vote for a `hidden_tests`
 * suite; one-provider alone for a `verdict` suite (a panel has no solo form to compare).
 * Throws EvalConfigError when a configuration names the other kind of workflow, when the first
 * has no engineer (build) or moderator (panel) to derive from, or when two arms share a name.
 */
export function deriveEvalArms(request: EvalRequest): EvalArm[] {
  const workflow = EVAL_WORKFLOW[request.score];
  for (const c of request.configs) {
    if (c.project.workflow !== undefined && c.project.workflow !== workflow) {
      throw new EvalConfigError(c.name, 'workflow', `is ${JSON.stringify(c.project.workflow)}, but a ${request.score} suite runs its tasks as ${workflow} runs`);
    }
  }
  const given: EvalArm[] = request.configs.map((c) => ({ name: c.name, kind: 'as_configured', source: c.name, samples: 1, project: c.project }));
  const first = request.configs[0];
  const derived = !request.baselines ? [] : request.score === 'hidden_tests' ? buildBaselines(first, request) : panelBaselines(first);
  const arms = [...given, ...derived];
  for (const arm of arms) {
    if (Math.floor(request.budget.max_tokens / arm.samples) < 1) {
      throw new EvalConfigError(arm.name, 'vote_samples', `${arm.samples} runs cannot share budget.max_tokens ${request.budget.max_tokens}; ask for fewer samples or a larger budget`);
    }
  }
  const seen = new Set<string>();
  for (const arm of arms) {
    if (seen.has(arm.name)) {
      const why = arm.kind === 'as_configured' ? 'two configurations have this name' : `the ${arm.kind} baseline derived from "${arm.source}" has this name too`;
      throw new EvalConfigError(arm.name, 'name', `${why}; give each configuration its own name`);
    }
    seen.add(arm.name);
  }
  return arms;
}

/** The largest float x with x × samples ≤ total: the share of a cap no rounding can push past it. */
function shareOf(total: number, samples: number): number {
  let share = total / samples;
  while (share * samples > total) share -= share * Number.EPSILON;
  return share;
}

/**
 * The budget one run of an arm is submitted with: the project's own, with the eval's caps in
 * place of its tokens, cost and time, the tokens and cost split evenly between an arm's samples
 * (so samples × per-run cap ≤ the eval's cap, whatever the arm), calls raised so they never bind
 * first, and no per-provider caps (which would let one arm's provider split differ from another's).
 * Without an eval cost cap the file's own stays.
 */
function runBudget(arm: EvalArm, budget: EvalBudget): Json {
  const { per_provider: _perProvider, ...own } = isObject(arm.project.budget) ? arm.project.budget : {};
  const out: Json = {
    ...own,
    max_tokens: Math.floor(budget.max_tokens / arm.samples),
    max_seconds: budget.max_seconds,
    max_calls: Math.max(typeof own.max_calls === 'number' ? own.max_calls : 0, EVAL_MIN_MAX_CALLS),
  };
  if (budget.max_cost_usd !== undefined) out.max_cost_usd = shareOf(budget.max_cost_usd, arm.samples);
  return out;
}

export type EvalTask = CodingTaskRequest | PanelIdeaTaskRequest;

/** The project name of one task's runs: `eval-<suite>-<task>`. */
export function evalProjectName(suite: string, task: Pick<EvalTask, 'id'>): string {
  return `eval-${suite}-${task.id}`;
}

/**
 * The project object one run of one task under one arm is submitted with. A coding task gives the
 * build its objective, requirements, test command and starter repository (omitted when none) —
 * never its hidden tests — at autonomy 2 with no gate, no merge and open questions ending the run,
 * since no person answers inside an eval. A panel task gives the panel its idea.
 */
export function runProjectFor(arm: EvalArm, task: EvalTask, budget: EvalBudget, suite: string): Record<string, unknown> {
  const project = evalProjectName(suite, task);
  if ('idea' in task) {
    return { ...arm.project, workflow: EVAL_WORKFLOW.verdict, project, idea: task.idea, budget: runBudget(arm, budget) };
  }
  const { merge: _merge, repo: _repo, approval_timeout_s: _timeout, ...rest } = arm.project;
  const out: Json = {
    ...rest,
    workflow: EVAL_WORKFLOW.hidden_tests,
    project,
    objective: task.objective,
    requirements: task.requirements,
    test_command: task.test_command,
    approvals: [],
    autonomy: 2,
    on_needs_evidence: 'end',
    budget: runBudget(arm, budget),
  };
  if (task.starter !== null) out.repo = task.starter;
  return out;
}

/** Every role's provider/model of an arm, distinct and in role order (EvalConfigView.models). */
export function armModels(arm: EvalArm): string[] {
  const p = arm.project;
  const agents: unknown[] = [
    ...(isObject(p.agents) ? Object.values(p.agents) : []),
    ...(isObject(p.judges) ? Object.values(p.judges) : []),
    p.moderator,
  ];
  const names = agents.filter(isObject).filter((a) => typeof a.provider === 'string' && typeof a.model === 'string').map((a) => `${a.provider}/${a.model}`);
  return [...new Set(names)];
}

/** An arm as the eval's detail shows it. */
export function evalConfigView(arm: EvalArm): EvalConfigView {
  return { name: arm.name, kind: arm.kind, source: arm.source, samples: arm.samples, models: armModels(arm) };
}
