import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import type { Worksheet } from '@roundtable/contracts';
import { IdeaEntity } from './idea.entity';

/**
 * One worksheet version: written once, never changed but for its lock. The first panel run
 * submitted on it locks it (`locked_by_run`, in the submission's transaction); after that an edit
 * aimed at it is refused and makes a new version instead.
 */
@Entity({ name: 'idea_versions' })
export class IdeaVersionEntity {
  @PrimaryColumn({ name: 'idea_id', type: 'text', primaryKeyConstraintName: 'pk_idea_versions' })
  @ForeignKey(() => IdeaEntity, { name: 'fk_idea_versions_idea_id', onDelete: 'CASCADE' })
  ideaId!: string;

  @PrimaryColumn({ name: 'version', type: 'integer', primaryKeyConstraintName: 'pk_idea_versions' })
  version!: number;

  @Column({ name: 'worksheet', type: 'jsonb' })
  worksheet!: Worksheet;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** The panel run that scored this version first; null while no panel has. */
  @Column({ name: 'locked_by_run', type: 'text', nullable: true })
  lockedByRun!: string | null;

  @Column({ name: 'locked_at', type: 'timestamptz', nullable: true })
  lockedAt!: Date | null;
}
