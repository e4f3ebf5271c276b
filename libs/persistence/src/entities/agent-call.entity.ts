import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { AgentCallStatus } from '@roundtable/contracts';
import { inListCheck } from './in-list.check';
import { numberFromString } from './numeric.transformer';
import { RunEntity } from './run.entity';

export interface StoredMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * The audit log: one row per LLM request. The orchestrator writes it `queued` with the exact
 * messages and limits; the provider worker fills in the outcome. API keys never reach it.
 */
@Entity({ name: 'agent_calls' })
@Index('ux_agent_calls_run_id_seq', ['runId', 'seq'], { unique: true })
@Index('ix_agent_calls_run_id_role', ['runId', 'role'])
@Index('ix_agent_calls_run_id_stage', ['runId', 'stage'])
@Index('ix_agent_calls_retry_of', ['retryOf'])
@Check('ck_agent_calls_status', inListCheck('status', AgentCallStatus.options))
export class AgentCallEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_agent_calls' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_agent_calls_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'seq', type: 'integer' })
  seq!: number;

  @Column({ name: 'stage', type: 'text' })
  stage!: string;

  @Column({ name: 'role', type: 'text' })
  role!: string;

  @Column({ name: 'provider', type: 'text' })
  provider!: string;

  @Column({ name: 'model', type: 'text' })
  model!: string;

  @Column({ name: 'label', type: 'text', nullable: true })
  label!: string | null;

  /** 2 = the one schema-repair call the orchestrator allows after invalid output. */
  @Column({ name: 'attempt', type: 'integer', default: 1 })
  attempt!: number;

  @Column({ name: 'repair_of', type: 'text', nullable: true })
  @ForeignKey(() => AgentCallEntity, { name: 'fk_agent_calls_repair_of', onDelete: 'NO ACTION' })
  repairOf!: string | null;

  /** Transient-failure retries before this attempt (0 = the first try); not the schema repair. */
  @Column({ name: 'retry', type: 'integer', default: 0 })
  retry!: number;

  /** The failed attempt this row retries with the same messages (network, 5xx, 429, timeout). */
  @Column({ name: 'retry_of', type: 'text', nullable: true })
  @ForeignKey(() => AgentCallEntity, { name: 'fk_agent_calls_retry_of', onDelete: 'NO ACTION' })
  retryOf!: string | null;

  @Column({ name: 'status', type: 'text' })
  status!: AgentCallStatus;

  /** sha256 of the messages; groups identical prompts across runs. */
  @Column({ name: 'prompt_hash', type: 'text' })
  promptHash!: string;

  @Column({ name: 'messages', type: 'jsonb' })
  messages!: StoredMessage[];

  /** Labels/ids of the rows the prompt was built from (P1, C2, T1 …). */
  @Column({ name: 'context_refs', type: 'jsonb', default: [] })
  contextRefs!: string[];

  @Column({ name: 'schema_name', type: 'text', nullable: true })
  schemaName!: string | null;

  @Column({ name: 'max_tokens', type: 'integer', nullable: true })
  maxTokens!: number | null;

  @Column({ name: 'temperature', type: 'double precision', nullable: true })
  temperature!: number | null;

  @Column({ name: 'timeout_ms', type: 'integer', nullable: true })
  timeoutMs!: number | null;

  @Column({ name: 'response_text', type: 'text', nullable: true })
  responseText!: string | null;

  @Column({ name: 'parsed', type: 'jsonb', nullable: true })
  parsed!: unknown;

  /** Whether `parsed` validated against `schema_name`; null until the call finishes. */
  @Column({ name: 'valid', type: 'boolean', nullable: true })
  valid!: boolean | null;

  @Column({ name: 'error', type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode!: string | null;

  @Column({ name: 'input_tokens', type: 'integer', nullable: true })
  inputTokens!: number | null;

  @Column({ name: 'output_tokens', type: 'integer', nullable: true })
  outputTokens!: number | null;

  @Column({ name: 'cached_input_tokens', type: 'integer', nullable: true })
  cachedInputTokens!: number | null;

  /** Null when the model has no known price; `cost_source` says where a value came from. */
  @Column({ name: 'cost_usd', type: 'numeric', precision: 12, scale: 6, nullable: true, transformer: numberFromString })
  costUsd!: number | null;

  @Column({ name: 'cost_source', type: 'text', nullable: true })
  costSource!: string | null;

  @Column({ name: 'latency_ms', type: 'integer', nullable: true })
  latencyMs!: number | null;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ name: 'billing', type: 'text', nullable: true })
  billing!: string | null;

  /** The command line of a CLI adapter call, for audit; never contains secrets. */
  @Column({ name: 'argv', type: 'jsonb', nullable: true })
  argv!: string[] | null;

  /**
   * The reply held characters Postgres cannot store (NUL, a lone surrogate): response_text,
   * parsed and error hold them as their 6-character `\uXXXX` escape. Null: no reply stored.
   */
  @Column({ name: 'response_escaped', type: 'boolean', nullable: true })
  responseEscaped!: boolean | null;

  /**
   * A failed try: worth asking again (the provider-worker's verdict). The engine decides the
   * retry from it. Null: the try did not fail. Written by the provider-worker (or by the
   * orchestrator from the copy agent.done carries), with the other outcome columns.
   */
  @Column({ name: 'retryable', type: 'boolean', nullable: true })
  retryable!: boolean | null;

  /** The provider's retry-after on a failed try, in ms (a 429's); null: no hint. */
  @Column({ name: 'retry_after_ms', type: 'integer', nullable: true })
  retryAfterMs!: number | null;

  /** A fork's copy of the original run's call of this id (reply, tokens and cost are that call's); not billed to this run. Null: a call of its own. */
  @Column({ name: 'copied_from', type: 'text', nullable: true })
  copiedFrom!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
