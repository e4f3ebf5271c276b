import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { inListCheck } from './in-list.check';
import { numberFromString } from './numeric.transformer';
import { RunEntity } from './run.entity';

export const PLAYGROUND_CALL_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;

/**
 * A call tried again from the workbench's playground (issue 22): a run's recorded call with an
 * edited prompt, model or provider, asked on its own. Its own table, so it is never part of the
 * run's usage, budget, events or report; capped by the operator's policy (playground.*).
 */
@Entity({ name: 'playground_calls' })
@Index('ix_playground_calls_run_id', ['runId'])
@Check('ck_playground_calls_status', inListCheck('status', PLAYGROUND_CALL_STATUSES))
export class PlaygroundCallEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_playground_calls' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_playground_calls_run_id', onDelete: 'CASCADE' })
  runId!: string;

  /** The run's call it was tried from (agent_calls.id). */
  @Column({ name: 'source_call_id', type: 'text' })
  sourceCallId!: string;

  @Column({ name: 'role', type: 'text' })
  role!: string;

  @Column({ name: 'provider', type: 'text' })
  provider!: string;

  @Column({ name: 'model', type: 'text' })
  model!: string;

  @Column({ name: 'schema_name', type: 'text' })
  schemaName!: string;

  @Column({ name: 'messages', type: 'jsonb' })
  messages!: Record<string, unknown>[];

  @Column({ name: 'max_tokens', type: 'integer' })
  maxTokens!: number;

  @Column({ name: 'temperature', type: 'double precision' })
  temperature!: number;

  @Column({ name: 'timeout_ms', type: 'integer' })
  timeoutMs!: number;

  @Column({ name: 'status', type: 'text', default: 'queued' })
  status!: string;

  @Column({ name: 'response_text', type: 'text', nullable: true })
  responseText!: string | null;

  @Column({ name: 'parsed', type: 'jsonb', nullable: true })
  parsed!: Record<string, unknown> | null;

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

  @Column({ name: 'cost_usd', type: 'numeric', precision: 12, scale: 6, nullable: true, transformer: numberFromString })
  costUsd!: number | null;

  @Column({ name: 'latency_ms', type: 'integer', nullable: true })
  latencyMs!: number | null;

  /** The api token that asked (its name). */
  @Column({ name: 'requested_by', type: 'text' })
  requestedBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
