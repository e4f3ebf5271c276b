import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'projects' })
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
