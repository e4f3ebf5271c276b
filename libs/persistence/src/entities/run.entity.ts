import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { type AcceptanceCriterion, type ForkOrigin, type HandedOffFrom, RunStatus } from '@roundtable/contracts';
import { inListCheck } from './in-list.check';
import { ProjectEntity } from './project.entity';

/** The run row is the orchestrator's state: it is locked FOR UPDATE while one event is applied. */
@Entity({ name: 'runs' })
@Index('ix_runs_team_created_at', ['team', 'createdAt'])
@Index('ix_runs_status', ['status'])
@Index('ix_runs_created_at', ['createdAt'])
// One run per Idempotency-Key and principal; rows without a key (nulls) never collide.
@Index('ux_runs_idempotency_key', ['idempotencyPrincipal', 'idempotencyKey'], { unique: true })
// On (forked_from ->> 'run_id'): an expression index TypeORM cannot declare, so it is the migration's alone.
@Index('ix_runs_forked_from_run_id', { synchronize: false })
// On (handed_off_from ->> 'idea_id'): an expression index, the migration's alone (GET /v1/ideas/:id's handoffs).
@Index('ix_runs_handed_off_from_idea_id', { synchronize: false })
// "Which panels were run on this idea (and version)": GET /v1/ideas/:id.
@Index('ix_runs_idea_id_version', ['ideaId', 'ideaVersion'])
// "Which runs does this eval cell have": the scorer and GET /v1/evals/:id.
@Index('ix_runs_eval_cell_id', ['evalCellId'])
@Check('ck_runs_status', inListCheck('status', RunStatus.options))
export class RunEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_runs' })
  id!: string;

  @Column({ name: 'project_id', type: 'text' })
  @ForeignKey(() => ProjectEntity, { name: 'fk_runs_project_id', onDelete: 'CASCADE' })
  projectId!: string;

  @Column({ name: 'workflow', type: 'text', default: 'build' })
  workflow!: string;

  @Column({ name: 'status', type: 'text' })
  status!: RunStatus;

  @Column({ name: 'stage', type: 'text' })
  stage!: string;

  @Column({ name: 'round', type: 'integer', default: 0 })
  round!: number;

  @Column({ name: 'fix_round', type: 'integer', default: 0 })
  fixRound!: number;

  /** The project config as resolved when the run started, so a later edit cannot change a run midway. */
  @Column({ name: 'config', type: 'jsonb' })
  config!: Record<string, unknown>;

  @Column({ name: 'workspace_path', type: 'text', nullable: true })
  workspacePath!: string | null;

  /** Acceptance criteria, frozen once locked so reviewers judge against what was agreed. */
  @Column({ name: 'criteria', type: 'jsonb', nullable: true })
  criteria!: AcceptanceCriterion[] | null;

  @Column({ name: 'criteria_locked', type: 'boolean', default: false })
  criteriaLocked!: boolean;

  @Column({ name: 'unresolved', type: 'boolean', default: false })
  unresolved!: boolean;

  @Column({ name: 'halt_reason', type: 'text', nullable: true })
  haltReason!: string | null;

  @Column({ name: 'verdict', type: 'text', nullable: true })
  verdict!: string | null;

  @Column({ name: 'confidence', type: 'double precision', nullable: true })
  confidence!: number | null;

  /** Last run_events.sequence written; the next event takes event_seq + 1 under the row lock. */
  @Column({ name: 'event_seq', type: 'integer', default: 0 })
  eventSeq!: number;

  /** Last agent_calls.seq handed out for this run. */
  @Column({ name: 'call_seq', type: 'integer', default: 0 })
  callSeq!: number;

  /** Next number per label prefix (P, C, I, T, R, S …) so labels stay short and stable. */
  @Column({ name: 'label_counters', type: 'jsonb', default: {} })
  labelCounters!: Record<string, number>;

  /** A non-build workflow's state (the panel's PanelRunState minus usage); null for build runs. */
  @Column({ name: 'workflow_state', type: 'jsonb', nullable: true })
  workflowState!: Record<string, unknown> | null;

  /** Who sent the Idempotency-Key (the API token's name, `anonymous` when open): keys are per principal. */
  @Column({ name: 'idempotency_principal', type: 'text', nullable: true })
  idempotencyPrincipal!: string | null;

  /** The submission's Idempotency-Key header; null when none was sent. */
  @Column({ name: 'idempotency_key', type: 'text', nullable: true })
  idempotencyKey!: string | null;

  /** SHA-256 of the body first sent under the key: the same key with another body is refused. */
  @Column({ name: 'request_hash', type: 'text', nullable: true })
  requestHash!: string | null;

  /**
   * Resume and appeal requests the api accepted, by job name (written by the api alone, under the
   * run lock); a request is pending while this says more than `requestsApplied`.
   */
  @Column({ name: 'requests', type: 'jsonb', default: {} })
  requests!: Partial<Record<string, number>>;

  /** Those requests a step has applied, by job name (written by the orchestrator's step alone). */
  @Column({ name: 'requests_applied', type: 'jsonb', default: {} })
  requestsApplied!: Partial<Record<string, number>>;

  /** The gate the run waits at while awaiting_approval ({ name, subject }); null otherwise. Written by the step. */
  @Column({ name: 'gate', type: 'jsonb', nullable: true })
  gate!: Record<string, unknown> | null;

  /** When the open gate's wait began (null with the gate). */
  @Column({ name: 'gate_opened_at', type: 'timestamptz', nullable: true })
  gateOpenedAt!: Date | null;

  /** Seconds the run has waited at gates in all, closed waits only: not counted against max_seconds. */
  @Column({ name: 'waited_seconds', type: 'double precision', default: 0 })
  waitedSeconds!: number;

  /** The api token's name that submitted the run (`anonymous` when the api runs open): four eyes refuses its approval. */
  @Column({ name: 'submitted_by', type: 'text', nullable: true })
  submittedBy!: string | null;

  /** A fork's origin: the run and stage it was started again from and the calls it may copy (ForkOrigin); null for any other run. Written by the api at submission. */
  @Column({ name: 'forked_from', type: 'jsonb', nullable: true })
  forkedFrom!: ForkOrigin | null;

  /** The idea worksheet version a panel was submitted on (`idea_ref`), resolved by the api into the inline idea; null otherwise. */
  @Column({ name: 'idea_id', type: 'text', nullable: true })
  ideaId!: string | null;

  @Column({ name: 'idea_version', type: 'integer', nullable: true })
  ideaVersion!: number | null;

  /** A build handed on from an idea panel's synthesis: the idea, version, panel run and its recommendation (HandedOffFrom); null for any other run. Written by the api at submission. */
  @Column({ name: 'handed_off_from', type: 'jsonb', nullable: true })
  handedOffFrom!: HandedOffFrom | null;

  /** The eval cell (issue 25) this run is one answer of; null for any other run. Written by the api at submission. */
  @Column({ name: 'eval_cell_id', type: 'text', nullable: true })
  evalCellId!: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  /** The hash of the run's last event (issue 26): the head of its hash chain, moved by every writer of its events. */
  @Column({ name: 'head_hash', type: 'text', nullable: true })
  headHash!: string | null;

  /** The operator's Ed25519 signature of the head hash at the run's last terminal event (AUDIT_SIGNING_KEY); null unsigned. */
  @Column({ name: 'signature', type: 'jsonb', nullable: true })
  signature!: Record<string, unknown> | null;

  /** The team that owns it (issue 26): only that team's tokens (and an admin) see it; another team's read answers 404. */
  @Column({ name: 'team', type: 'text', default: 'default' })
  team!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
