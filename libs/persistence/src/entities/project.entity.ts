import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity({ name: 'projects' })
// A capped project's runs are found by the name their files give (caps across runs, issue 26).
@Index('ix_projects_name', ['name'])
export class ProjectEntity {
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_projects' })
  id!: string;

  @Column({ name: 'name', type: 'text' })
  name!: string;

  @Column({ name: 'objective', type: 'text' })
  objective!: string;

  @Column({ name: 'requirements', type: 'jsonb' })
  requirements!: string[];

  @Column({ name: 'config', type: 'jsonb' })
  config!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
