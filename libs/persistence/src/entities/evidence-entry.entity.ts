import { Check, Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { EVIDENCE_KINDS, type EvidenceKind } from '@roundtable/contracts';
import { IdeaEntity } from './idea.entity';
import { inListCheck } from './in-list.check';

/** One entry of an idea's evidence ledger: append-only (no route updates or deletes one); a correction is a new entry that `supersedes` it. */
@Entity({ name: 'evidence_entries' })
@Check('ck_evidence_entries_kind', inListCheck('kind', EVIDENCE_KINDS))
export class EvidenceEntryEntity {
  @PrimaryColumn({ name: 'idea_id', type: 'text', primaryKeyConstraintName: 'pk_evidence_entries' })
  @ForeignKey(() => IdeaEntity, { name: 'fk_evidence_entries_idea_id', onDelete: 'CASCADE' })
  ideaId!: string;

  /** E1, E2 … within the idea. */
  @PrimaryColumn({ name: 'entry_id', type: 'text', primaryKeyConstraintName: 'pk_evidence_entries' })
  entryId!: string;

  /** The entry's number (the n of E<n>), for ordering. */
  @Column({ name: 'seq', type: 'integer' })
  seq!: number;

  @Column({ name: 'claim', type: 'text' })
  claim!: string;

  @Column({ name: 'source', type: 'text' })
  source!: string;

  @Column({ name: 'kind', type: 'text' })
  kind!: EvidenceKind;

  /** When the evidence was gathered (an ISO date), not when it was logged. */
  @Column({ name: 'date', type: 'date' })
  date!: string;

  @Column({ name: 'supersedes', type: 'text', nullable: true })
  supersedes!: string | null;

  /** The api token's name that logged it. */
  @Column({ name: 'logged_by', type: 'text' })
  loggedBy!: string;

  @CreateDateColumn({ name: 'logged_at', type: 'timestamptz' })
  loggedAt!: Date;
}
