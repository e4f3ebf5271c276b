import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { AgentCallEntity } from './agent-call.entity';
import { inListCheck } from './in-list.check';
import { ProposalEntity } from './proposal.entity';
import { RunEntity } from './run.entity';

export const IMPLEMENTATION_STATUSES = ['pending', 'applied', 'rejected'] as const;
export type ImplementationStatus = (typeof IMPLEMENTATION_STATUSES)[number];

@Entity({ name: 'implementations' })
@Index('ix_implementations_run_id', ['runId'])
@Check('ck_implementations_status', inListCheck('status', IMPLEMENTATION_STATUSES))
export class ImplementationEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_implementations' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_implementations_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'call_id', type: 'text' })
  @ForeignKey(() => AgentCallEntity, { name: 'fk_implementations_call_id', onDelete: 'NO ACTION' })
  callId!: string;

  @Column({ name: 'label', type: 'text' })
  label!: string;

  /** Null for a solo run (issue 25): its engineer works from the objective and requirements, not a proposal. */
  @Column({ name: 'proposal_id', type: 'text', nullable: true })
  @ForeignKey(() => ProposalEntity, { name: 'fk_implementations_proposal_id', onDelete: 'NO ACTION' })
  proposalId!: string | null;

  @Column({ name: 'fix_round', type: 'integer' })
  fixRound!: number;

  @Column({ name: 'artifact_ids', type: 'jsonb', default: [] })
  artifactIds!: string[];

  @Column({ name: 'body', type: 'jsonb' })
  body!: Record<string, unknown>;

  @Column({ name: 'status', type: 'text' })
  status!: ImplementationStatus;

  /** Why the workspace refused the files (e.g. a path outside the workspace). */
  @Column({ name: 'apply_error', type: 'text', nullable: true })
  applyError!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
