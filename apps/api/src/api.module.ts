import path from 'node:path';
import { DynamicModule, Inject, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bullmq';
import { BULL_BOARD_INSTANCE } from '@bull-board/nestjs/dist/bull-board.constants';
import type { BullBoardInstance } from '@bull-board/nestjs';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { QUEUE, type OperatorPolicy } from '@roundtable/contracts';
import { RunEventPublisher } from '@roundtable/events';
import { ReadinessModule, TerminusReadiness, TraceExportLifecycle } from '@roundtable/observability';
import { openMigratedDataSource } from '@roundtable/persistence';
import { createRedisConnection, JobProducer, type RedisClient } from '@roundtable/queues';
import { connectRedis, INFRA, OutboxDispatcher, queueModules, ServiceOps } from '@roundtable/service';
import { QueueBoard } from './queue-board';
import { AgentCallsService } from './agent-calls.service';
import type { ApiEnv } from './api.env';
import { bullBoardModule } from './bull-board.modules';
import { CallsController } from './calls.controller';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { ReadinessService } from './readiness.service';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';
import { ReadDb } from './read-db';
import { RunQueryService } from './run-query.service';
import { RunControlController } from './run-control.controller';
import { RunControlService } from './run-control.service';
import { RunAppealController } from './run-appeal.controller';
import { RunAppealService } from './run-appeal.service';
import { RunForkController } from './run-fork.controller';
import { RunForkService } from './run-fork.service';
import { IdeasController } from './ideas.controller';
import { IdeasService } from './ideas.service';
import { IdeaHandoffService } from './idea-handoff.service';
import { IdeaExperimentService } from './idea-experiment.service';
import { ExperimentReads } from './experiment-reads';
import { ExperimentsController } from './experiments.controller';
import { ExperimentsService } from './experiments.service';
import { EvalReads } from './evals/eval-reads';
import { EvalsController } from './evals/evals.controller';
import { EvalsService } from './evals/evals.service';
import { RunEventHub } from './run-event-hub';
import { RunEventsController } from './run-events.controller';
import { RunEventsService } from './run-events.service';
import { RunSubmissionService } from './run-submission.service';
import { ProviderAvailabilityCheck } from './provider-availability.check';
import { MeController } from './me.controller';
import { UsageController } from './usage.controller';
import { UsageService } from './usage.service';
import { ProvidersController } from './providers.controller';
import { RunsController } from './runs.controller';
import { RunRecordController } from './run-record.controller';
import { RunRecordService } from './run-record.service';
import { RunRecordsController } from './run-records.controller';
import { RunRecordsService } from './run-records.service';
import { RequestSpanInterceptor } from './request-span.interceptor';
import { EXAMPLES, ExamplesController } from './examples.controller';
import { WorkflowsController } from './workflows.controller';
import { PlaygroundController } from './playground.controller';
import { PlaygroundService } from './playground.service';
import { readExamples } from './examples-catalogue';
import { BiasAuditController } from './audit/bias-audit.controller';
import { BiasAuditService } from './audit/bias-audit.service';

const { dataSource: DS, redis: REDIS, producer: PRODUCER } = INFRA;

/** Connections in the read replica's pool: it serves the api's reads only, a few at a time. */
const READ_POOL_SIZE = 4;

/** It produces to `orchestrator` and shows every fixed queue on Bull Board. */
const QUEUES = Object.values(QUEUE);

/** Owns the connections' lifetime, closing them in dependency order: board queues, producer, Redis, Postgres. */
class Connections implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(DS) private readonly ds: DataSource,
    @Inject(ReadDb) private readonly reads: ReadDb,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(PRODUCER) private readonly producer: JobProducer,
    @Inject(QueueBoard) private readonly board: QueueBoard,
  ) {}
  async onApplicationBootstrap(): Promise<void> {
    await this.board.start();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.board.close();
    await this.producer.close();
    this.redis.disconnect();
    await this.reads.replica?.destroy();
    await this.ds.destroy();
  }
}

/**
 * Wires the REST API: Postgres, Redis, the outbox for run.start/cancel/resume, the event stream,
 * Bull Board, health, metrics. `policy` is the operator's, read once at start: submissions are held against it.
 */
/** EXAMPLES_DIR, or ./examples of the working directory (the repository, or /app in the image). */
function examplesDirOf(env: ApiEnv): string {
  return path.resolve(env.EXAMPLES_DIR ?? 'examples');
}

@Module({})
export class ApiModule {
  static forRoot(env: ApiEnv, policy: OperatorPolicy): DynamicModule {
    return {
      module: ApiModule,
      imports: [ReadinessModule, ...queueModules(env, QUEUES), bullBoardModule()],
      controllers: [RunsController, RunRecordsController, RunRecordController, RunEventsController, RunControlController, RunAppealController, RunForkController, IdeasController, ExperimentsController, EvalsController, CallsController, ProvidersController, MeController, UsageController, ExamplesController, WorkflowsController, PlaygroundController, BiasAuditController, HealthController, MetricsController],
      providers: [
        // Write requests get a span, the run's trace root (off without OTEL_EXPORTER_OTLP_ENDPOINT); flushed at shutdown.
        { provide: APP_INTERCEPTOR, useClass: RequestSpanInterceptor },
        TraceExportLifecycle,
        { provide: EXAMPLES, useFactory: () => readExamples(examplesDirOf(env), policy.cassettes.roots) },
        { provide: DS, useFactory: () => openMigratedDataSource(env.DATABASE_URL, { applicationName: 'roundtable-api' }) },
        // The replica when DATABASE_READ_URL is set (read-only, its own small pool; checked migrated as the
        // primary is, so a replica of another database is refused at start), else the primary again.
        {
          provide: ReadDb,
          useFactory: async (ds: DataSource) =>
            new ReadDb(
              ds,
              env.DATABASE_READ_URL
                ? await openMigratedDataSource(env.DATABASE_READ_URL, { applicationName: 'roundtable-api-read', poolSize: READ_POOL_SIZE, readOnly: true, urlVar: 'DATABASE_READ_URL' })
                : null,
            ),
          inject: [DS],
        },
        // Held to a deadline at start so a wrong REDIS_URL is said, not waited on forever.
        { provide: REDIS, useFactory: () => connectRedis(env.REDIS_URL) },
        {
          provide: PRODUCER,
          useFactory: (r: RedisClient, ...registered: Queue[]) => new JobProducer(r, env.QUEUE_PREFIX, registered),
          inject: [REDIS, ...QUEUES.map((q) => getQueueToken(q))],
        },
        // The write quota's buckets, on the shared connection (so Connections closes it), shared by every replica.
        { provide: RedisTokenBucketStorage, useFactory: (r: RedisClient) => new RedisTokenBucketStorage(r), inject: [REDIS] },
        { provide: IdeasService, useFactory: (ds: DataSource, reads: ReadDb) => new IdeasService(ds, reads), inject: [DS, ReadDb] },
        {
          provide: RunSubmissionService,
          useFactory: (ds: DataSource, r: RedisClient, p: JobProducer, ideas: IdeasService) =>
            new RunSubmissionService(ds, new OutboxDispatcher(ds, p), new RunEventPublisher(r, env.QUEUE_PREFIX), policy, new ProviderAvailabilityCheck(r, env.QUEUE_PREFIX, policy), ideas),
          inject: [DS, REDIS, PRODUCER, IdeasService],
        },
        { provide: RunForkService, useFactory: (ds: DataSource, submission: RunSubmissionService) => new RunForkService(ds, submission), inject: [DS, RunSubmissionService] },
        { provide: IdeaHandoffService, useFactory: (ds: DataSource, submission: RunSubmissionService) => new IdeaHandoffService(ds, submission), inject: [DS, RunSubmissionService] },
        { provide: ExperimentReads, useFactory: (reads: ReadDb) => new ExperimentReads(reads), inject: [ReadDb] },
        { provide: EvalReads, useFactory: (reads: ReadDb) => new EvalReads(reads), inject: [ReadDb] },
        { provide: EvalsService, useFactory: (ds: DataSource, submission: RunSubmissionService) => new EvalsService(ds, submission), inject: [DS, RunSubmissionService] },
        {
          provide: ExperimentsService,
          useFactory: (ds: DataSource, r: RedisClient, submission: RunSubmissionService, reads: ExperimentReads) =>
            new ExperimentsService(ds, submission, reads, policy, new ProviderAvailabilityCheck(r, env.QUEUE_PREFIX, policy)),
          inject: [DS, REDIS, RunSubmissionService, ExperimentReads],
        },
        { provide: IdeaExperimentService, useFactory: (ds: DataSource, experiments: ExperimentsService) => new IdeaExperimentService(ds, experiments), inject: [DS, ExperimentsService] },
        {
          provide: RunControlService,
          useFactory: (ds: DataSource, p: JobProducer) => new RunControlService(ds, new OutboxDispatcher(ds, p), policy),
          inject: [DS, PRODUCER],
        },
        {
          provide: PlaygroundService,
          useFactory: (ds: DataSource, p: JobProducer) => new PlaygroundService(ds, new OutboxDispatcher(ds, p), policy),
          inject: [DS, PRODUCER],
        },
        {
          provide: RunAppealService,
          useFactory: (ds: DataSource, p: JobProducer, ideas: IdeasService) => new RunAppealService(ds, new OutboxDispatcher(ds, p), ideas),
          inject: [DS, PRODUCER, IdeasService],
        },
        // Its own connection: a subscribed Redis connection can run no other command. Ends its streams on shutdown.
        { provide: RunEventHub, useFactory: () => new RunEventHub(createRedisConnection(env.REDIS_URL), env.QUEUE_PREFIX) },
        {
          provide: RunEventsService,
          useFactory: (reads: ReadDb, hub: RunEventHub) =>
            new RunEventsService(reads, hub, {
              heartbeatMs: env.SSE_HEARTBEAT_MS,
              retryMs: env.SSE_RETRY_MS,
              pageSize: 2000,
              maxBufferedBytes: 4 * 1024 * 1024,
              maxPending: 10_000,
            }),
          inject: [ReadDb, RunEventHub],
        },
        // The pure reads (ReadDb: the replica when there is one; each says why its lag is safe there).
        { provide: UsageService, useFactory: (reads: ReadDb) => new UsageService(reads, policy.budgets), inject: [ReadDb] },
        { provide: BiasAuditService, useFactory: (reads: ReadDb) => new BiasAuditService(reads), inject: [ReadDb] },
        { provide: RunQueryService, useFactory: (reads: ReadDb) => new RunQueryService(reads), inject: [ReadDb] },
        { provide: RunRecordsService, useFactory: (reads: ReadDb, runs: RunQueryService) => new RunRecordsService(reads, runs), inject: [ReadDb, RunQueryService] },
        { provide: RunRecordService, useFactory: (reads: ReadDb, runs: RunQueryService) => new RunRecordService(reads, runs, env.AUDIT_PUBLIC_KEY), inject: [ReadDb, RunQueryService] },
        { provide: AgentCallsService, useFactory: (reads: ReadDb, runs: RunQueryService) => new AgentCallsService(reads, runs), inject: [ReadDb, RunQueryService] },
        {
          provide: ReadinessService,
          useFactory: (t: TerminusReadiness, ds: DataSource, r: RedisClient, reads: ReadDb) => new ReadinessService(t, ds, r, undefined, reads.replica),
          inject: [TerminusReadiness, DS, REDIS, ReadDb],
        },
        {
          provide: QueueBoard,
          useFactory: (board: BullBoardInstance, ds: DataSource, r: RedisClient, ...fixed: Queue[]) => new QueueBoard(board, fixed, ds, r, env.QUEUE_PREFIX),
          inject: [BULL_BOARD_INSTANCE, DS, REDIS, ...QUEUES.map((q) => getQueueToken(q))],
        },
        // Metrics for /metrics behind the doors, and with HEALTH_PORT the same internal ops port the workers have.
        {
          provide: ServiceOps,
          useFactory: (ds: DataSource, r: RedisClient) => new ServiceOps(ds, r, { service: 'api', prefix: env.QUEUE_PREFIX, healthPort: env.HEALTH_PORT ?? null }),
          inject: [DS, REDIS],
        },
        Connections,
      ],
    };
  }
}
