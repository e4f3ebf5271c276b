import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { numberFromString } from './numeric.transformer';
import { RunEntity } from './run.entity';

/** Every state transition and every verdict applied, with the rows that justified it. */
@Entity({ name: 'decisions' })
@Index('ix_decisions_run_id', ['runId'])
export class DecisionEntity {
  @PrimaryColumn({
    name: 'id',
    type: 'bigint',
    generated: 'increment',
    primaryKeyConstraintName: 'pk_decisions',
    transformer: numberFromString,
  })
  id!: number;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_decisions_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'from_stage', type: 'text' })
  fromStage!: string;

  @Column({ name: 'to_stage', type: 'text' })
  toStage!: string;

  @Column({ name: 'reason', type: 'text' })
  reason!: string;

  @Column({ name: 'refs', type: 'jsonb' })
  refs!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
