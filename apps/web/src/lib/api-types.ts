/**
 * The api's reply shapes the workbench reads: the types of the api's own reply schemas
 * (libs/contracts/src/api, which /docs/openapi.json is generated from), imported as types
 * only — the browser bundle loads no zod and no contracts code (tools/build-web.mjs checks).
 */
import type { Me } from '@roundtable/contracts';

export type {
  ApiErrorBody,
  AuditRate,
  BiasAudit,
  BiasFlag,
  BuildRecords,
  CallDetail,
  CallSummary,
  CritiqueItem,
  DisagreementItem,
  EvidenceEntry,
  EvidenceKind,
  ExampleProject,
  ExperimentDetail,
  ExperimentInterpretation,
  ExperimentList,
  ExperimentRecords,
  ExperimentResult,
  ExperimentSource,
  ExperimentStarted,
  CriterionRead,
  Preregistration,
  IdeaDetail,
  IdeaDiff,
  IdeaListItem,
  IdeaSummary,
  IdeaVersion,
  IdeaVersionDetail,
  ImplementationItem,
  JudgeVerdictItem,
  Me,
  PanelRecords,
  PlaygroundCall,
  ProposalItem,
  Readiness,
  ReadinessCheck,
  RecordProblem as Problem,
  RescoreItem,
  ReviewItem,
  RunCaps,
  RunDetail,
  RunListItem,
  RunRecords,
  TestRunItem,
  WorkflowGraph,
  WorkflowSummary,
  Worksheet,
} from '@roundtable/contracts';

export type TokenRole = Me['role'];
