import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { AgentCallEntity } from './agent-call.entity';
import { RunEntity } from './run.entity';

@Entity({ name: 'proposals' })
@Index('ix_proposals_run_id', ['runId'])
export class ProposalEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_proposals' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_proposals_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'call_id', type: 'text' })
  @ForeignKey(() => AgentCallEntity, { name: 'fk_proposals_call_id', onDelete: 'NO ACTION' })
  callId!: string;

  @Column({ name: 'label', type: 'text' })
  label!: string;

  /** The proposal this one revises; "what changed afterward" is answered by following it. */
  @Column({ name: 'revision_of', type: 'text', nullable: true })
  @ForeignKey(() => ProposalEntity, { name: 'fk_proposals_revision_of', onDelete: 'NO ACTION' })
  revisionOf!: string | null;

  @Column({ name: 'round', type: 'integer' })
  round!: number;

  @Column({ name: 'status', type: 'text' })
  status!: string;

  @Column({ name: 'body', type: 'jsonb' })
  body!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
