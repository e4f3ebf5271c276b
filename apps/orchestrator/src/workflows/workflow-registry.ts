import type { EntityManager } from 'typeorm';
import { isRequestJob, jobNamesOf, TERMINAL_RUN_STATUSES, type RunStatus } from '@roundtable/contracts';
import { addStatement, type RunEntity, type StatementBatch } from '@roundtable/persistence';
import { COUNT_APPLIED_REQUEST } from '../sql/step-writes.sql';
import type { ExperimentStepContext, PanelStepContext, StepContext } from '@roundtable/workflow';
import { buildWorkflow } from './build/build.workflow';
import { experimentWorkflow } from './experiment/experiment.workflow';
import { panelWorkflow } from './panel/panel.workflow';
import { IGNORED, type JobInput, type OrchestratedWorkflow, type OrchestratorJobName, type RunChainHead, type StepResultShape } from './workflow-definition';

/** What one step of a run hands its workflow: the job, the locked run and what was read with the lock. */
export interface StepInput {
  em: EntityManager;
  run: RunEntity;
  name: OrchestratorJobName;
  payload: Record<string, unknown> & { runId: string };
  settled: Record<string, unknown> | undefined | null;
  /** The run's usage, read with the lock (RUN_USAGE). */
  usageRow: Record<string, unknown>;
  now: Date;
}

/** A decided step, ready for the one step writer: the result, and how to queue the workflow's own rows. */
export interface DecidedStep {
  result: StepResultShape;
  write(batch: StatementBatch, events: number, chain: RunChainHead): Promise<number>;
}

/** A workflow bound to its context (prompt templates, prices): the step service runs any of them alike. */
export interface RegisteredWorkflow {
  jobs: OrchestratedWorkflow<unknown, unknown, StepResultShape, unknown>['jobs'];
  /** The job as this workflow's event, decided; 'ignored' when the job means nothing to it, or to a finished run. */
  decide(input: StepInput): Promise<DecidedStep | 'ignored'>;
}

/** Every workflow the orchestrator runs, by the run row's `workflow` column. */
export type WorkflowRegistry = Record<string, RegisteredWorkflow>;

/** Binds a definition to its context; `context` is asked at the first step of such a run (the panel's templates may be absent). */
export function registered<S, E, R extends StepResultShape, C>(def: OrchestratedWorkflow<S, E, R, C>, context: (run: RunEntity) => C): RegisteredWorkflow {
  return {
    jobs: def.jobs as RegisteredWorkflow['jobs'],
    async decide(input) {
      const handler = def.jobs[input.name];
      if (handler === IGNORED || handler === undefined) return 'ignored';
      if (TERMINAL_RUN_STATUSES.includes(input.run.status as RunStatus) && !handler.afterTheEnd) return 'ignored';
      const ctx = context(input.run);
      const jobInput: JobInput<OrchestratorJobName> = { em: input.em, run: input.run, payload: input.payload as never, settled: input.settled };
      const event = await (handler.toEvent as (i: typeof jobInput) => E | null | Promise<E | null>)(jobInput);
      if (event === null) return 'ignored';
      const state = await def.loadState(input.run, input.usageRow, input.now, input.em);
      const result = def.decide(state, event, ctx);
      return {
        result,
        async write(batch, events, chain) {
          const at = await def.write(batch, { em: input.em, run: input.run, event, result, events, chain, now: input.now });
          if (isRequestJob(input.name)) addStatement(batch, COUNT_APPLIED_REQUEST, input.run.id, input.name);
          return at;
        },
      };
    },
  };
}

/** The orchestrator's registry: { build, panel, experiment }. */
export function workflowRegistry(ctx: { build: StepContext; panel: PanelStepContext | null; experiment?: ExperimentStepContext | null }): WorkflowRegistry {
  return checkJobTables({
    build: registered(buildWorkflow, () => ctx.build),
    panel: registered(panelWorkflow, (run) => {
      if (!ctx.panel) throw new Error(`run ${run.id} is a panel run and this orchestrator has no panel prompt templates`);
      return ctx.panel;
    }),
    experiment: registered(experimentWorkflow, (run) => {
      if (!ctx.experiment) throw new Error(`run ${run.id} is an experiment and this orchestrator has no experiment prompt templates`);
      return ctx.experiment;
    }),
  });
}

/**
 * Boot-time completeness (house style 6): every workflow has a handler (or IGNORED) for every
 * job of the orchestrator queue in the contracts catalogue, so a job added there without a
 * handler stops the orchestrator at start instead of failing runs one job at a time.
 */
export function checkJobTables<R extends WorkflowRegistry>(registry: R): R {
  const missing = Object.entries(registry).flatMap(([workflow, w]) =>
    jobNamesOf('orchestrator')
      .filter((n) => !(w.jobs as Record<string, unknown>)[n])
      .map((n) => `${workflow}: ${n}`),
  );
  if (missing.length) {
    throw new Error(
      `the orchestrator's workflow registry has no handler for job(s) ${missing.join(', ')}: add each to that workflow's job table (apps/orchestrator/src/workflows/), as a handler or IGNORED`,
    );
  }
  return registry;
}
