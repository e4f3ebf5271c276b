import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { AgentCallEntity } from './agent-call.entity';
import { inListCheck } from './in-list.check';
import { RunEntity } from './run.entity';

export const ARTIFACT_KINDS = ['file', 'test_output', 'diff', 'report', 'bundle', 'patch'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

/** Content is stored in the row so a run's audit survives its workspace being deleted. */
@Entity({ name: 'artifacts' })
@Index('ix_artifacts_run_id', ['runId'])
@Check('ck_artifacts_kind', inListCheck('kind', ARTIFACT_KINDS))
export class ArtifactEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_artifacts' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_artifacts_run_id', onDelete: 'CASCADE' })
  runId!: string;

  /** Null for output the system produced itself (test output, reports). */
  @Column({ name: 'call_id', type: 'text', nullable: true })
  @ForeignKey(() => AgentCallEntity, { name: 'fk_artifacts_call_id', onDelete: 'NO ACTION' })
  callId!: string | null;

  @Column({ name: 'kind', type: 'text' })
  kind!: ArtifactKind;

  @Column({ name: 'path', type: 'text' })
  path!: string;

  @Column({ name: 'sha256', type: 'text' })
  sha256!: string;

  @Column({ name: 'bytes', type: 'integer' })
  bytes!: number;

  @Column({ name: 'content', type: 'text' })
  content!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
