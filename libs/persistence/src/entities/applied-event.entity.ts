import { CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { RunEntity } from './run.entity';

/**
 * The orchestrator's inbox: a row per event already applied to a run, inserted in the same
 * transaction as the step, so a redelivered job finds its key and does nothing.
 */
@Entity({ name: 'applied_events' })
export class AppliedEventEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text', primaryKeyConstraintName: 'pk_applied_events' })
  @ForeignKey(() => RunEntity, { name: 'fk_applied_events_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @PrimaryColumn({ name: 'event_key', type: 'text', primaryKeyConstraintName: 'pk_applied_events' })
  eventKey!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
