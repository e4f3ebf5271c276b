import { InitialSchema1764500000000 } from './1764500000000-initial-schema';
import { AgentCallRetries1764600000000 } from './1764600000000-agent-call-retries';
import { RunWorkflowState1765000000000 } from './1765000000000-run-workflow-state';
import { WorkspaceOpRead1765100000000 } from './1765100000000-workspace-op-read';
import { AgentCallResponseEscaped1765210000000 } from './1765210000000-agent-call-response-escaped';
import { AgentCallRetryable1765300000000 } from './1765300000000-agent-call-retryable';
import { OutboxNotBefore1765400000000 } from './1765400000000-outbox-not-before';
import { RunIdempotencyKey1765500000000 } from './1765500000000-run-idempotency-key';
import { RunRequests1765600000000 } from './1765600000000-run-requests';
import { PeopleInTheLoop1765700000000 } from './1765700000000-people-in-the-loop';
import { WorkspaceOpTool1765800000000 } from './1765800000000-workspace-op-tool';
import { PlaygroundCalls1765900000000 } from './1765900000000-playground-calls';
import { RunForks1766000000000 } from './1766000000000-run-forks';
import { IdeaWorksheets1766100000000 } from './1766100000000-idea-worksheets';
import { RunHandoffs1766200000000 } from './1766200000000-run-handoffs';
import { Experiments1766300000000 } from './1766300000000-experiments';
import { SoloImplementations1766400000000 } from './1766400000000-solo-implementations';
import { Evals1766500000000 } from './1766500000000-evals';
import { Accountable1766600000000 } from './1766600000000-accountable';
import { ProjectNameIndex1766630000000 } from './1766630000000-project-name-index';
import { Lz4Compression1766700000000 } from './1766700000000-lz4-compression';

/** In order. Listed explicitly rather than globbed so the esbuild bundles carry every migration. */
export const ALL_MIGRATIONS = [InitialSchema1764500000000, AgentCallRetries1764600000000, RunWorkflowState1765000000000, WorkspaceOpRead1765100000000, AgentCallResponseEscaped1765210000000, AgentCallRetryable1765300000000, OutboxNotBefore1765400000000, RunIdempotencyKey1765500000000, RunRequests1765600000000, PeopleInTheLoop1765700000000, WorkspaceOpTool1765800000000, PlaygroundCalls1765900000000, RunForks1766000000000, IdeaWorksheets1766100000000, RunHandoffs1766200000000, Experiments1766300000000, SoloImplementations1766400000000, Evals1766500000000, Accountable1766600000000, ProjectNameIndex1766630000000, Lz4Compression1766700000000] as const;
