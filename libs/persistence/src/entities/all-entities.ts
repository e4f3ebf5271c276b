import { AgentCallEntity } from './agent-call.entity';
import { AppliedEventEntity } from './applied-event.entity';
import { ArtifactEntity } from './artifact.entity';
import { BudgetReservationEntity } from './budget-reservation.entity';
import { CritiqueEntity } from './critique.entity';
import { DecisionEntity } from './decision.entity';
import { EvalCellEntity } from './eval-cell.entity';
import { EvalTaskEntity } from './eval-task.entity';
import { EvalEntity } from './eval.entity';
import { EvidenceEntryEntity } from './evidence-entry.entity';
import { ExperimentEntity } from './experiment.entity';
import { HypothesisEntity } from './hypothesis.entity';
import { IdeaVersionEntity } from './idea-version.entity';
import { IdeaEntity } from './idea.entity';
import { ImplementationEntity } from './implementation.entity';
import { LessonEntity } from './lesson.entity';
import { OpenQuestionEntity } from './open-question.entity';
import { OutboxEntity } from './outbox.entity';
import { PlaygroundCallEntity } from './playground-call.entity';
import { ProjectEntity } from './project.entity';
import { ProposalEntity } from './proposal.entity';
import { RunEventEntity } from './run-event.entity';
import { RunEntity } from './run.entity';
import { SynthesisEntity } from './synthesis.entity';
import { TestRunEntity } from './test-run.entity';
import { UsageByProviderEntity } from './usage-by-provider.entity';
import { WorkspaceOpEntity } from './workspace-op.entity';

/** Listed explicitly rather than globbed so the esbuild bundles carry every entity. */
export const ALL_ENTITIES = [
  ProjectEntity,
  RunEntity,
  AgentCallEntity,
  ProposalEntity,
  CritiqueEntity,
  SynthesisEntity,
  ArtifactEntity,
  ImplementationEntity,
  TestRunEntity,
  WorkspaceOpEntity,
  DecisionEntity,
  OpenQuestionEntity,
  HypothesisEntity,
  ExperimentEntity,
  LessonEntity,
  UsageByProviderEntity,
  RunEventEntity,
  PlaygroundCallEntity,
  IdeaEntity,
  IdeaVersionEntity,
  EvidenceEntryEntity,
  OutboxEntity,
  BudgetReservationEntity,
  AppliedEventEntity,
  EvalEntity,
  EvalTaskEntity,
  EvalCellEntity,
] as const;
