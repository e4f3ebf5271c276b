import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { RunEntity } from './run.entity';

@Entity({ name: 'open_questions' })
@Index('ix_open_questions_run_id', ['runId'])
export class OpenQuestionEntity {
  @PrimaryGeneratedColumn('increment', { name: 'id', type: 'integer', primaryKeyConstraintName: 'pk_open_questions' })
  id!: number;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_open_questions_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'raised_by_role', type: 'text' })
  raisedByRole!: string;

  @Column({ name: 'question', type: 'text' })
  question!: string;

  @Column({ name: 'status', type: 'text', default: 'open' })
  status!: string;

  /** A person's answer, and who gave it (the api token's name): status is `answered` then. */
  @Column({ name: 'answer', type: 'text', nullable: true })
  answer!: string | null;

  @Column({ name: 'answered_by', type: 'text', nullable: true })
  answeredBy!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
