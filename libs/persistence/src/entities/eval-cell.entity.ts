import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { EvalEntity } from './eval.entity';
import { inListCheck } from './in-list.check';
import { numberFromString } from './numeric.transformer';

export const EVAL_CELL_STATUSES = ['running', 'scored', 'error'] as const;
export type EvalCellStatus = (typeof EVAL_CELL_STATUSES)[number];

/**
 * One task under one configuration: its runs (`runs.eval_cell_id`; one, or N for a vote) and,
 * once they have all ended, its score. The api writes the row; the score columns are the
 * test-runner's alone (the scorer), written once under the row's lock.
 */
@Entity({ name: 'eval_cells' })
@Index('ix_eval_cells_eval_id', ['evalId'])
@Check('ck_eval_cells_status', inListCheck('status', EVAL_CELL_STATUSES))
export class EvalCellEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_eval_cells' })
  id!: string;

  @Column({ name: 'eval_id', type: 'text' })
  @ForeignKey(() => EvalEntity, { name: 'fk_eval_cells_eval_id', onDelete: 'CASCADE' })
  evalId!: string;

  @Column({ name: 'task_id', type: 'text' })
  taskId!: string;

  @Column({ name: 'config', type: 'text' })
  config!: string;

  @Column({ name: 'status', type: 'text', default: 'running' })
  status!: EvalCellStatus;

  /** The run whose work was scored (the plurality answer of a vote). */
  @Column({ name: 'chosen_run_id', type: 'text', nullable: true })
  chosenRunId!: string | null;

  @Column({ name: 'passed', type: 'boolean', nullable: true })
  passed!: boolean | null;

  /** A line: "hidden tests: 7 passed", "verdict GO, reference NO-GO", or the error. */
  @Column({ name: 'reason', type: 'text', nullable: true })
  reason!: string | null;

  /** The scorer's record: the command, exit code, output tail, the vote's groups. */
  @Column({ name: 'detail', type: 'jsonb', nullable: true })
  detail!: Record<string, unknown> | null;

  /** Usage of the cell's runs summed from their agent calls at scoring. */
  @Column({ name: 'tokens', type: 'integer', default: 0 })
  tokens!: number;

  @Column({ name: 'cost_usd', type: 'numeric', precision: 12, scale: 6, default: 0, transformer: numberFromString })
  costUsd!: number;

  @Column({ name: 'seconds', type: 'double precision', default: 0 })
  seconds!: number;

  /**
   * When a scorer claimed the cell: one scorer at a time (a vote's samples end together and each
   * asks), so two never share the scoring copy. A claim older than the scorer's lease (a scorer that
   * died) may be taken again.
   */
  @Column({ name: 'scoring_started_at', type: 'timestamptz', nullable: true })
  scoringStartedAt!: Date | null;

  @Column({ name: 'scored_at', type: 'timestamptz', nullable: true })
  scoredAt!: Date | null;
}
