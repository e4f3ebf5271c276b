import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** An idea (issue 23): a name for its worksheet versions and its evidence ledger. The latest version and the ledger's counter are on the row, written under its lock. */
@Entity({ name: 'ideas' })
@Index('ix_ideas_team_created_at', ['team', 'createdAt'])
@Index('ix_ideas_created_at', ['createdAt'])
export class IdeaEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_ideas' })
  id!: string;

  /** The latest version's title, for lists. */
  @Column({ name: 'title', type: 'text' })
  title!: string;

  @Column({ name: 'latest_version', type: 'integer' })
  latestVersion!: number;

  /** The number of the last ledger entry (E<n>); the next takes n + 1 under the idea's row lock. */
  @Column({ name: 'evidence_seq', type: 'integer', default: 0 })
  evidenceSeq!: number;

  /** The api token's name that created it (`anonymous` when the api runs open). */
  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  /** The team that owns it (issue 26): only that team's tokens (and an admin) see it; another team's read answers 404. */
  @Column({ name: 'team', type: 'text', default: 'default' })
  team!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
