import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { inListCheck } from './in-list.check';

export const EVAL_STATUSES = ['running', 'done'] as const;
export type EvalStatus = (typeof EVAL_STATUSES)[number];
export const EVAL_SCORES = ['hidden_tests', 'verdict'] as const;

/**
 * An evaluation (issue 25): one suite's tasks, each run under every configuration as ordinary
 * runs and scored. Its configurations (`configs`: the given ones and the derived baselines, each
 * with the project object its runs were submitted with) and its budget per task are stored as
 * they were applied, so the record says what was compared at which cap. Written by the api;
 * `status` and `finished_at` by the test-runner when the last cell is scored.
 */
@Entity({ name: 'evals' })
@Index('ix_evals_team_created_at', ['team', 'createdAt'])
@Index('ix_evals_created_at', ['createdAt'])
@Check('ck_evals_status', inListCheck('status', EVAL_STATUSES))
@Check('ck_evals_score', inListCheck('score', EVAL_SCORES))
export class EvalEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_evals' })
  id!: string;

  @Column({ name: 'suite', type: 'text' })
  suite!: string;

  @Column({ name: 'score', type: 'text' })
  score!: (typeof EVAL_SCORES)[number];

  @Column({ name: 'status', type: 'text', default: 'running' })
  status!: EvalStatus;

  /** The cap every configuration had per task (contracts' EvalBudget). */
  @Column({ name: 'budget', type: 'jsonb' })
  budget!: Record<string, unknown>;

  /** The configurations in order (libs/workflow's EvalArm: name, kind, source, samples, project). */
  @Column({ name: 'configs', type: 'jsonb' })
  configs!: Record<string, unknown>[];

  @Column({ name: 'submitted_by', type: 'text', nullable: true })
  submittedBy!: string | null;

  /** The team that owns it (issue 26): only that team's tokens (and an admin) see it; another team's read answers 404. */
  @Column({ name: 'team', type: 'text', default: 'default' })
  team!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
