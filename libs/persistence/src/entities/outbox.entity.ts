import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { numberFromString } from './numeric.transformer';
import { RunEntity } from './run.entity';

/**
 * Jobs decided inside an orchestrator transaction, enqueued only after it commits. Rows left
 * with `sent_at` null after a crash are re-sent by a sweeper; deterministic job ids make the
 * re-send harmless. The partial index keeps the sweeper's scan to unsent rows.
 */
@Entity({ name: 'outbox' })
@Index('ix_outbox_unsent_created_at', ['createdAt'], { where: '"sent_at" IS NULL' })
@Index('ix_outbox_run_id', ['runId'])
export class OutboxEntity {
  @PrimaryColumn({
    name: 'id',
    type: 'bigint',
    generated: 'increment',
    primaryKeyConstraintName: 'pk_outbox',
    transformer: numberFromString,
  })
  id!: number;

  @Column({ name: 'run_id', type: 'text', nullable: true })
  @ForeignKey(() => RunEntity, { name: 'fk_outbox_run_id', onDelete: 'CASCADE' })
  runId!: string | null;

  /** A BullMQ queue name, i.e. a Redis key. */
  @Column({ name: 'queue', type: 'text' })
  queue!: string;

  @Column({ name: 'job_name', type: 'text' })
  jobName!: string;

  @Column({ name: 'job_id', type: 'text' })
  jobId!: string;

  @Column({ name: 'payload', type: 'jsonb' })
  payload!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Not to run before this (a transient retry's backoff); the sweeper sends what is left of the delay. Null: at once. */
  @Column({ name: 'not_before', type: 'timestamptz', nullable: true })
  notBefore!: Date | null;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt!: Date | null;
}
