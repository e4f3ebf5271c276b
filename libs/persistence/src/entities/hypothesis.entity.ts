import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { ProjectEntity } from './project.entity';

/** Present from day one so the research milestones need no migration; unused for now. */
@Entity({ name: 'hypotheses' })
export class HypothesisEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_hypotheses' })
  id!: string;

  @Column({ name: 'project_id', type: 'text' })
  @ForeignKey(() => ProjectEntity, { name: 'fk_hypotheses_project_id', onDelete: 'CASCADE' })
  projectId!: string;

  @Column({ name: 'statement', type: 'text' })
  statement!: string;

  @Column({ name: 'status', type: 'text' })
  status!: string;

  @Column({ name: 'body', type: 'jsonb' })
  body!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
