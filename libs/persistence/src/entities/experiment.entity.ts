import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { HypothesisEntity } from './hypothesis.entity';
import { ProjectEntity } from './project.entity';

/**
 * A pre-registered experiment: the plan is hashed and locked before any result exists, and a
 * result is only trusted if it carries the same hash. Unused for now.
 */
@Entity({ name: 'experiments' })
export class ExperimentEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_experiments' })
  id!: string;

  @Column({ name: 'project_id', type: 'text' })
  @ForeignKey(() => ProjectEntity, { name: 'fk_experiments_project_id', onDelete: 'CASCADE' })
  projectId!: string;

  @Column({ name: 'hypothesis_id', type: 'text', nullable: true })
  @ForeignKey(() => HypothesisEntity, { name: 'fk_experiments_hypothesis_id', onDelete: 'NO ACTION' })
  hypothesisId!: string | null;

  @Column({ name: 'prereg', type: 'jsonb' })
  prereg!: Record<string, unknown>;

  @Column({ name: 'prereg_hash', type: 'text' })
  preregHash!: string;

  @Column({ name: 'locked_at', type: 'timestamptz' })
  lockedAt!: Date;

  @Column({ name: 'result', type: 'jsonb', nullable: true })
  result!: Record<string, unknown> | null;

  /** Whether the result arrived with the pre-registration's hash. */
  @Column({ name: 'result_hash_check', type: 'boolean', nullable: true })
  resultHashCheck!: boolean | null;

  @Column({ name: 'interpreted_at', type: 'timestamptz', nullable: true })
  interpretedAt!: Date | null;

  /** PASS | KILL | INCONCLUSIVE */
  @Column({ name: 'decision', type: 'text', nullable: true })
  decision!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
