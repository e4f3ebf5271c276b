import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { HypothesisEntity } from './hypothesis.entity';
import { inListCheck } from './in-list.check';
import { ProjectEntity } from './project.entity';

export const EXPERIMENT_STATUSES = ['draft', 'locked', 'decided', 'rejected'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

/**
 * A preregistered experiment (issue 24): the plan is hashed and locked before any result exists,
 * pinned to the commit it was written against, and a result is only stored with the same hash.
 * A drafted one (from a build's NEEDS_EXPERIMENT or an idea's recommended experiment) has no
 * preregistration until a person approves the draft at its gate; that approval locks it.
 */
@Entity({ name: 'experiments' })
@Index('ix_experiments_team_created_at', ['team', 'createdAt'])
@Index('ix_experiments_created_at', ['createdAt'])
@Index('ix_experiments_source_idea_id', { synchronize: false })
@Check('ck_experiments_status', inListCheck('status', EXPERIMENT_STATUSES))
export class ExperimentEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_experiments' })
  id!: string;

  @Column({ name: 'project_id', type: 'text' })
  @ForeignKey(() => ProjectEntity, { name: 'fk_experiments_project_id', onDelete: 'CASCADE' })
  projectId!: string;

  @Column({ name: 'hypothesis_id', type: 'text', nullable: true })
  @ForeignKey(() => HypothesisEntity, { name: 'fk_experiments_hypothesis_id', onDelete: 'NO ACTION' })
  hypothesisId!: string | null;

  @Column({ name: 'status', type: 'text', default: 'locked' })
  status!: ExperimentStatus;

  /** The preregistration (contracts' Preregistration); null while a draft waits at its gate. */
  @Column({ name: 'prereg', type: 'jsonb', nullable: true })
  prereg!: Record<string, unknown> | null;

  /** sha256 hex of its canonical JSON (persistence experiment-hash.ts). */
  @Column({ name: 'prereg_hash', type: 'text', nullable: true })
  preregHash!: string | null;

  @Column({ name: 'locked_at', type: 'timestamptz', nullable: true })
  lockedAt!: Date | null;

  /** The repository (a path the operator's policy admits) and the commit the method runs at. */
  @Column({ name: 'repo', type: 'text', nullable: true })
  repo!: string | null;

  @Column({ name: 'commit', type: 'text', nullable: true })
  commit!: string | null;

  /** Where it came from: { build_run_id, question_id } or { idea_id, panel_run_id }; null when preregistered directly. */
  @Column({ name: 'source', type: 'jsonb', nullable: true })
  source!: Record<string, unknown> | null;

  /** Its latest run (workflow `experiment`). */
  @Column({ name: 'run_id', type: 'text', nullable: true })
  runId!: string | null;

  /** { metrics, prereg_hash, exit_code, output_artifact_id, … }: stored once, only with the preregistration's hash. */
  @Column({ name: 'result', type: 'jsonb', nullable: true })
  result!: Record<string, unknown> | null;

  /** Whether the result arrived with the preregistration's hash. */
  @Column({ name: 'result_hash_check', type: 'boolean', nullable: true })
  resultHashCheck!: boolean | null;

  /** The criteria as code read them, the interpreter's readings, an override request, the critic's review, an open question. */
  @Column({ name: 'interpretation', type: 'jsonb', nullable: true })
  interpretation!: Record<string, unknown> | null;

  @Column({ name: 'interpreted_at', type: 'timestamptz', nullable: true })
  interpretedAt!: Date | null;

  /** PASS | KILL | INCONCLUSIVE, computed by code from the criteria. */
  @Column({ name: 'decision', type: 'text', nullable: true })
  decision!: string | null;

  @Column({ name: 'created_by', type: 'text', nullable: true })
  createdBy!: string | null;

  /** The team that owns it (issue 26): only that team's tokens (and an admin) see it; another team's read answers 404. */
  @Column({ name: 'team', type: 'text', default: 'default' })
  team!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
