import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { EvalEntity } from './eval.entity';

/**
 * One task of an eval as it was sent: `spec` is what its runs were given (objective,
 * requirements, commands, starter, or the idea and its reference); `hidden` the hidden tests,
 * kept in their own column that no run, prompt or read of the api ever selects — only the
 * test-runner's scorer reads it, into a scoring copy, after the task's runs have ended.
 */
@Entity({ name: 'eval_tasks' })
export class EvalTaskEntity {
  @PrimaryColumn({ name: 'eval_id', type: 'text', primaryKeyConstraintName: 'pk_eval_tasks' })
  @ForeignKey(() => EvalEntity, { name: 'fk_eval_tasks_eval_id', onDelete: 'CASCADE' })
  evalId!: string;

  @PrimaryColumn({ name: 'task_id', type: 'text', primaryKeyConstraintName: 'pk_eval_tasks' })
  taskId!: string;

  @Column({ name: 'position', type: 'integer' })
  position!: number;

  @Column({ name: 'difficulty', type: 'text' })
  difficulty!: string;

  @Column({ name: 'spec', type: 'jsonb' })
  spec!: Record<string, unknown>;

  /** [{ path, content }]: null for a verdict suite. */
  @Column({ name: 'hidden', type: 'jsonb', nullable: true })
  hidden!: { path: string; content: string }[] | null;
}
