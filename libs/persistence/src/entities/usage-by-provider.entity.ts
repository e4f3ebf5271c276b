import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { numberFromString } from './numeric.transformer';
import { RunEntity } from './run.entity';

/** Per-run, per-provider totals kept alongside agent_calls so a budget check is one row read. */
@Entity({ name: 'usage_by_provider' })
export class UsageByProviderEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text', primaryKeyConstraintName: 'pk_usage_by_provider' })
  @ForeignKey(() => RunEntity, { name: 'fk_usage_by_provider_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @PrimaryColumn({ name: 'provider', type: 'text', primaryKeyConstraintName: 'pk_usage_by_provider' })
  provider!: string;

  @Column({ name: 'calls', type: 'integer' })
  calls!: number;

  @Column({ name: 'input_tokens', type: 'integer' })
  inputTokens!: number;

  @Column({ name: 'output_tokens', type: 'integer' })
  outputTokens!: number;

  /** Null while every call so far had an unknown price. */
  @Column({ name: 'cost_usd', type: 'numeric', precision: 12, scale: 6, nullable: true, transformer: numberFromString })
  costUsd!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
