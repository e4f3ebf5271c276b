import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { AgentCallEntity } from './agent-call.entity';
import { inListCheck } from './in-list.check';
import { RunEntity } from './run.entity';

export const CRITIQUE_TARGET_KINDS = ['proposal', 'implementation'] as const;
export type CritiqueTargetKind = (typeof CRITIQUE_TARGET_KINDS)[number];

/**
 * Critiques of proposals and the validator's reviews of implementations share this table:
 * both are a verdict on a target, and one table keeps "who objected to what" a single query.
 * `target_id` has no foreign key because it points at either table.
 */
@Entity({ name: 'critiques' })
@Index('ix_critiques_run_id', ['runId'])
@Index('ix_critiques_target_id', ['targetId'])
@Check('ck_critiques_target_kind', inListCheck('target_kind', CRITIQUE_TARGET_KINDS))
export class CritiqueEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_critiques' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_critiques_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'call_id', type: 'text' })
  @ForeignKey(() => AgentCallEntity, { name: 'fk_critiques_call_id', onDelete: 'NO ACTION' })
  callId!: string;

  @Column({ name: 'label', type: 'text' })
  label!: string;

  @Column({ name: 'target_kind', type: 'text' })
  targetKind!: CritiqueTargetKind;

  @Column({ name: 'target_id', type: 'text' })
  targetId!: string;

  @Column({ name: 'verdict', type: 'text' })
  verdict!: string;

  @Column({ name: 'body', type: 'jsonb' })
  body!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
