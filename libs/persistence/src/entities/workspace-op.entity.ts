import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { ImplementationEntity } from './implementation.entity';
import { inListCheck } from './in-list.check';
import { RunEntity } from './run.entity';

export const WORKSPACE_OP_KINDS = ['prepare', 'apply', 'tests', 'read', 'merge', 'tool', 'export', 'experiment'] as const;
export type WorkspaceOpKind = (typeof WORKSPACE_OP_KINDS)[number];
export const WORKSPACE_OP_STATUSES = ['queued', 'done', 'failed'] as const;
export type WorkspaceOpStatus = (typeof WORKSPACE_OP_STATUSES)[number];

/** One request to the test-runner; its status row makes a redelivered job a no-op. */
@Entity({ name: 'workspace_ops' })
@Index('ix_workspace_ops_run_id', ['runId'])
@Check('ck_workspace_ops_kind', inListCheck('kind', WORKSPACE_OP_KINDS))
@Check('ck_workspace_ops_status', inListCheck('status', WORKSPACE_OP_STATUSES))
export class WorkspaceOpEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_workspace_ops' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_workspace_ops_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'kind', type: 'text' })
  kind!: WorkspaceOpKind;

  @Column({ name: 'status', type: 'text' })
  status!: WorkspaceOpStatus;

  @Column({ name: 'implementation_id', type: 'text', nullable: true })
  @ForeignKey(() => ImplementationEntity, { name: 'fk_workspace_ops_implementation_id', onDelete: 'NO ACTION' })
  implementationId!: string | null;

  @Column({ name: 'result', type: 'jsonb', nullable: true })
  result!: Record<string, unknown> | null;

  @Column({ name: 'error', type: 'text', nullable: true })
  error!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
