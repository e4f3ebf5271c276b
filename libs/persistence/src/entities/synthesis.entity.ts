import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { AgentCallEntity } from './agent-call.entity';
import { RunEntity } from './run.entity';

/**
 * The run's final report. `call_id` and `body` are null for a fact-only report, written by the
 * orchestrator when the synthesizer's own provider is out of budget.
 */
@Entity({ name: 'syntheses' })
@Index('ix_syntheses_run_id', ['runId'])
export class SynthesisEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_syntheses' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_syntheses_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'call_id', type: 'text', nullable: true })
  @ForeignKey(() => AgentCallEntity, { name: 'fk_syntheses_call_id', onDelete: 'NO ACTION' })
  callId!: string | null;

  @Column({ name: 'label', type: 'text' })
  label!: string;

  @Column({ name: 'verdict', type: 'text', nullable: true })
  verdict!: string | null;

  /** True when the run halted before the workflow finished, so the report covers part of it. */
  @Column({ name: 'partial', type: 'boolean' })
  partial!: boolean;

  @Column({ name: 'body', type: 'jsonb', nullable: true })
  body!: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
