import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { ArtifactEntity } from './artifact.entity';
import { ImplementationEntity } from './implementation.entity';
import { RunEntity } from './run.entity';

/** Written by the test-runner from the process it ran, never from an LLM's account of it. */
@Entity({ name: 'test_runs' })
@Index('ix_test_runs_run_id', ['runId'])
export class TestRunEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_test_runs' })
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  @ForeignKey(() => RunEntity, { name: 'fk_test_runs_run_id', onDelete: 'CASCADE' })
  runId!: string;

  @Column({ name: 'implementation_id', type: 'text' })
  @ForeignKey(() => ImplementationEntity, { name: 'fk_test_runs_implementation_id', onDelete: 'NO ACTION' })
  implementationId!: string;

  @Column({ name: 'label', type: 'text' })
  label!: string;

  @Column({ name: 'command', type: 'text' })
  command!: string;

  @Column({ name: 'exit_code', type: 'integer' })
  exitCode!: number;

  /** Null when the output could not be parsed into counts. */
  @Column({ name: 'passed', type: 'integer', nullable: true })
  passed!: number | null;

  @Column({ name: 'failed', type: 'integer', nullable: true })
  failed!: number | null;

  @Column({ name: 'errors', type: 'integer', nullable: true })
  errors!: number | null;

  @Column({ name: 'timed_out', type: 'boolean' })
  timedOut!: boolean;

  @Column({ name: 'output_artifact_id', type: 'text', nullable: true })
  @ForeignKey(() => ArtifactEntity, { name: 'fk_test_runs_output_artifact_id', onDelete: 'NO ACTION' })
  outputArtifactId!: string | null;

  @Column({ name: 'duration_s', type: 'double precision', nullable: true })
  durationS!: number | null;

  /** Which runner executed the tests: the report must say when they ran outside the container. */
  @Column({ name: 'runner', type: 'text' })
  runner!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
