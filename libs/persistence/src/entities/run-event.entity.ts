import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { RunEntity } from './run.entity';

/**
 * The run's event log, written in the same transaction as the change it describes. The
 * sequence is per run and gap-free, so SSE clients can resume after Last-Event-ID.
 */
@Entity({ name: 'run_events' })
export class RunEventEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text', primaryKeyConstraintName: 'pk_run_events' })
  @ForeignKey(() => RunEntity, { name: 'fk_run_events_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @PrimaryColumn({ name: 'sequence', type: 'integer', primaryKeyConstraintName: 'pk_run_events' })
  sequence!: number;

  @Column({ name: 'type', type: 'text' })
  type!: string;

  @Column({ name: 'payload', type: 'jsonb' })
  payload!: Record<string, unknown>;

  /** sha256(previous event's hash ‖ canonical envelope) (issue 26); null for events written before the chain. */
  @Column({ name: 'hash', type: 'text', nullable: true })
  hash!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
