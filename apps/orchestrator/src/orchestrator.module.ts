import { DynamicModule, Logger, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { loadPricingTable, priceOf } from '@roundtable/providers';
import type { JobProducer, RedisClient } from '@roundtable/queues';
import { infraProviders, INFRA, opsProviders, OutboxDispatcher, queueModules, ServiceOps } from '@roundtable/service';
import { DEFAULT_OPERATOR_POLICY, QUEUE, type OperatorPolicy } from '@roundtable/contracts';
import type { PriceLookup } from '@roundtable/workflow';
import type { OrchestratorEnv } from './orchestrator.env';
import { OrchestratorStepService } from './orchestrator-step.service';
import { OrchestratorProcessor } from './orchestrator.processor';
import { OrchestratorSweeps } from './orchestrator-sweeps';
import { RunReconciler } from './reconciler/run-reconciler';
import { OutcomeCountingPublisher } from './run-outcome.metrics';
import { defaultPromptsDir, loadPromptTemplates } from './prompt-templates';
import { loadExperimentPromptTemplates } from './workflows/experiment/experiment-prompt-templates';
import { loadPanelPromptTemplates } from './workflows/panel/panel-prompt-templates';

const { dataSource: DS, redis: REDIS, producer: PRODUCER } = INFRA;

/** It consumes `orchestrator` and produces to every queue (the steps' jobs, and the reconciler's resends). */
const QUEUES = [QUEUE.orchestrator, QUEUE.workspace, QUEUE.tests];

/** Wires the orchestrator: Postgres, Redis, the outbox, the pure workflow, the queue's processor, the sweeps and its ops port. */
@Module({})
export class OrchestratorModule {
  /** `policy`: the operator's, read at start (readOperatorPolicy); its budgets are the caps across runs. */
  static forRoot(env: OrchestratorEnv, policy: OperatorPolicy = DEFAULT_OPERATOR_POLICY): DynamicModule {
    return {
      module: OrchestratorModule,
      imports: queueModules(env, QUEUES),
      providers: [
        ...infraProviders(env, 'orchestrator', QUEUES),
        ...opsProviders(env, 'orchestrator'),
        {
          provide: OrchestratorStepService,
          useFactory: (ds: DataSource, r: RedisClient, p: JobProducer, ops: ServiceOps) =>
            new OrchestratorStepService(
              ds,
              new OutboxDispatcher(ds, p),
              new OutcomeCountingPublisher(r, env.QUEUE_PREFIX, ds, ops.metrics),
              loadPromptTemplates(env.PROMPTS_DIR ?? defaultPromptsDir()),
              loadPanelPromptTemplates(env.PROMPTS_DIR ?? defaultPromptsDir()),
              tablePrices(env.PRICING_FILE),
              env.PROVIDER_RETRY_DELAYS_MS,
              loadExperimentPromptTemplates(env.PROMPTS_DIR ?? defaultPromptsDir()),
              undefined, // the registry of every workflow, bound to the above
              { signer: env.AUDIT_SIGNING_KEY, budgets: policy.budgets },
            ),
          inject: [DS, REDIS, PRODUCER, ServiceOps],
        },
        {
          provide: OrchestratorProcessor,
          useFactory: (steps: OrchestratorStepService, ops: ServiceOps) =>
            new OrchestratorProcessor(steps, { concurrency: env.ORCHESTRATOR_CONCURRENCY, metrics: ops.metrics }),
          inject: [OrchestratorStepService, ServiceOps],
        },
        {
          provide: OrchestratorSweeps,
          useFactory: (ds: DataSource, p: JobProducer) =>
            new OrchestratorSweeps(
              new OutboxDispatcher(ds, p),
              env.OUTBOX_SWEEP_MS,
              new RunReconciler(ds, p, {
                resendAfterMs: env.RECONCILE_RESEND_AFTER_MS,
                // A call's worker renews its job's lock while it runs; past its timeout and a lock's length it is gone.
                leaseMarginMs: 60_000,
                defaultCallTimeoutMs: 600_000,
                haltAfterMs: env.RECONCILE_HALT_AFTER_MS,
              }),
              env.RECONCILE_MS,
            ),
          inject: [DS, PRODUCER],
        },
      ],
    };
  }
}

/**
 * The budget's worst case in USD: a call reserves its prompt estimate plus its max output tokens
 * at the model's table price (the same table the provider-worker prices replies with); an
 * unpriced model reserves no USD.
 */
function tablePrices(pricingFile: string | undefined): PriceLookup {
  const table = loadPricingTable(pricingFile, (m) => new Logger('orchestrator').warn(m));
  return (model) => {
    const p = priceOf(table, model);
    return p ? { inputPerMtok: p.input, outputPerMtok: p.output } : null;
  };
}
