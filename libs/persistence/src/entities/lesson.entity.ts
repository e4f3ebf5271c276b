import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryGeneratedColumn } from 'typeorm';
import { ProjectEntity } from './project.entity';

/**
 * Cross-run research memory (keyword search only). `source_run_id` has no foreign key: a
 * lesson outlives the run it came from. Unused for now.
 */
@Entity({ name: 'lessons' })
export class LessonEntity {
  @PrimaryGeneratedColumn('increment', { name: 'id', type: 'integer', primaryKeyConstraintName: 'pk_lessons' })
  id!: number;

  /** Null for a global lesson. */
  @Column({ name: 'project_id', type: 'text', nullable: true })
  @ForeignKey(() => ProjectEntity, { name: 'fk_lessons_project_id', onDelete: 'CASCADE' })
  projectId!: string | null;

  /** project | global */
  @Column({ name: 'scope', type: 'text' })
  scope!: string;

  @Column({ name: 'text', type: 'text' })
  text!: string;

  @Column({ name: 'tags', type: 'jsonb', default: [] })
  tags!: string[];

  @Column({ name: 'source_run_id', type: 'text', nullable: true })
  sourceRunId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
