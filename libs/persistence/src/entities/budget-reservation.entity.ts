import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { numberFromString } from './numeric.transformer';
import { RunEntity } from './run.entity';

/**
 * Budget held for an agent call still in flight, so concurrent calls cannot together overrun
 * a cap. `call_id` has no foreign key: the reservation is taken before the call row is
 * written, in the same transaction.
 */
@Entity({ name: 'budget_reservations' })
@Index('ix_budget_reservations_run_id', ['runId'])
export class BudgetReservationEntity {
  @PrimaryColumn({ name: 'call_id', type: 'text', primaryKeyConstraintName: 'pk_budget_reservations' })
  callId!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_budget_reservations_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'provider', type: 'text' })
  provider!: string;

  @Column({ name: 'calls', type: 'integer' })
  calls!: number;

  @Column({ name: 'tokens', type: 'integer' })
  tokens!: number;

  @Column({ name: 'cost_usd', type: 'numeric', precision: 12, scale: 6, nullable: true, transformer: numberFromString })
  costUsd!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
