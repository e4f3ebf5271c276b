import { z } from 'zod';
import { AcceptanceCriterion, CreateIdeaRequest, EditIdeaRequest, ExperimentProjectConfig, HandoffRequest, IdeaRef, LogEvidenceRequest, PanelProjectConfig, ProjectConfig } from '@roundtable/contracts';
import * as Replies from '@roundtable/contracts';
import { BuildRecords, PanelRecords, ProvidersReply, RunRecords } from '@roundtable/contracts';
import { AppealRequest } from '../appeal-request.schema';
import { ForkRequest } from '../fork-request.schema';
import { ResumeRequest } from '../resume-request.schema';
import { RUN_EVENT_FRAMES, RunEventFrame } from './run-event-frames.schema';

/** The schemas the OpenAPI document's components are generated from, by component name. */

/** A panel project file that names an idea worksheet version instead of an inline idea: the api resolves it (a version that is not ready is a 400). */
const PanelProjectConfigByIdeaRef = PanelProjectConfig.omit({ idea: true }).extend({ idea_ref: IdeaRef });

/** POST /v1/ideas/:id/experiment: an experiment file less what the idea and its panel give, and the panel to draw from. */
const { preregistration: _p, draft_from: _d, commit: _c, workflow: _w, ...experimentFields } = ExperimentProjectConfig.shape;
const IdeaExperimentRequest = z.object({ ...experimentFields, panel_run_id: z.string().optional() }).strict();

/** Request bodies are described as a client writes them (defaults optional): zod's input side. */
export const REQUEST_SCHEMAS: Record<string, z.ZodType> = {
  BuildProjectConfig: ProjectConfig,
  PanelProjectConfig,
  PanelProjectConfigByIdeaRef,
  ResumeRequest,
  AppealRequest,
  ForkRequest,
  CreateIdeaRequest,
  EditIdeaRequest,
  LogEvidenceRequest,
  HandoffRequest,
  ExperimentProjectConfig,
  IdeaExperimentRequest,
  EvalRequest: Replies.EvalRequest,
};

/** Replies as the API sends them: zod's output side. */
export const REPLY_SCHEMAS: Record<string, z.ZodType> = {
  ApiError: Replies.ApiErrorBody,
  RunLinks: Replies.RunLinks,
  SubmittedRun: Replies.SubmittedRun,
  ForkedRun: Replies.ForkedRun,
  RunSummary: Replies.RunSummary,
  RunListUsage: Replies.RunListUsage,
  RunListItem: Replies.RunListItem,
  RunList: Replies.RunList,
  RunUsage: Replies.RunUsage,
  ProviderUsage: Replies.ProviderUsage,
  RunCaps: Replies.RunCaps,
  PanelSummary: Replies.PanelSummary,
  AcceptanceCriterion,
  RunDetail: Replies.RunDetail,
  CallSummary: Replies.CallSummary,
  CallList: Replies.CallList,
  CallDetail: Replies.CallDetail,
  RunRecords,
  BuildRecords,
  PanelRecords,
  RecordVerdict: Replies.RecordVerdict,
  RunExport: Replies.RunExport,
  RecordedEvent: Replies.RecordedEvent,
  RecordedCall: Replies.RecordedCall,
  RecordArtifact: Replies.RecordArtifact,
  RunSignature: Replies.RunSignature,
  ControlRequested: Replies.ControlRequested,
  AppealRequested: Replies.AppealRequested,
  RunEvent: RunEventFrame,
  ...RUN_EVENT_FRAMES,
  WorkflowList: Replies.WorkflowList,
  PlaygroundCall: Replies.PlaygroundCall,
  PlaygroundCallList: Replies.PlaygroundCallList,
  ExampleProject: Replies.ExampleProject,
  ExampleList: Replies.ExampleList,
  Health: Replies.HealthReply,
  Ready: Replies.ReadyReply,
  Providers: ProvidersReply,
  Me: Replies.Me,
  UsageReport: Replies.UsageReport,
  UsageRow: Replies.UsageRow,
  IdeaSummary: Replies.IdeaSummary,
  IdeaList: Replies.IdeaList,
  IdeaDetail: Replies.IdeaDetail,
  HandedOffRun: Replies.HandedOffRun,
  IdeaVersion: Replies.IdeaVersion,
  IdeaVersionDetail: Replies.IdeaVersionDetail,
  IdeaVersionList: Replies.IdeaVersionList,
  Readiness: Replies.Readiness,
  EvidenceEntry: Replies.EvidenceEntry,
  EvidenceList: Replies.EvidenceList,
  IdeaDiff: Replies.IdeaDiff,
  ExperimentDetail: Replies.ExperimentDetail,
  ExperimentList: Replies.ExperimentList,
  ExperimentStarted: Replies.ExperimentStarted,
  ExperimentEditRefused: Replies.ExperimentEditRefused,
  EvalDetail: Replies.EvalDetail,
  EvalList: Replies.EvalList,
  BiasAudit: Replies.BiasAudit,
};
