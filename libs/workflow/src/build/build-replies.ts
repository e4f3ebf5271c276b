import { FilesRequested, ToolTurn, type BuildRole, type Critique, type Implementation, type Proposal, type Review, type Stage, type Synthesis } from '@roundtable/contracts';
import type { FinishedCall } from './build-types';
import type { Step } from './build-step';
import { onCritique, onProposal } from './debate.stage';
import { onFilesRequested } from './file-reads';
import { onImplementation, onReview } from './implement.stage';
import { onSynthesis } from './synthesize.stage';
import { onEngineerTurn } from './tool-loop';

/**
 * What a valid build reply does. Reading before writing: the critic's, engineer's or
 * validator's reply may be a request for files instead of the artifact.
 */

function filesRequestOf(parsed: unknown): FilesRequested | null {
  const request = FilesRequested.safeParse(parsed);
  return request.success ? request.data : null;
}

/** A turn of an agent-mode engineer's tool loop (its reply holds tool_calls, an artifact never does). */
function toolTurnOf(role: BuildRole, parsed: unknown): ToolTurn | null {
  if (role !== 'engineer' || parsed === null || typeof parsed !== 'object' || !('tool_calls' in parsed)) return null;
  const turn = ToolTurn.safeParse(parsed);
  return turn.success ? turn.data : null;
}

function artifactGist(role: BuildRole, label: string, parsed: unknown): string {
  switch (role) {
    case 'proposer':
    case 'reviser':
      return `${label}: ${(parsed as Proposal).claim}`;
    case 'critic': {
      const c = parsed as Critique;
      return `${label} ${c.verdict} (${c.problems.length} problems)`;
    }
    case 'engineer': {
      const impl = parsed as Implementation;
      const deleted = impl.deleted?.length ? `; deletes ${impl.deleted.join(', ')}` : '';
      return `${label} files: ${impl.files.map((f) => f.path).join(', ')}${deleted}`;
    }
    case 'validator':
    case 'reviewer': {
      const r = parsed as Review;
      return `${label} ${r.verdict} (${r.requirement_checks.filter((c) => c.satisfied).length}/${r.requirement_checks.length} checks satisfied)`;
    }
    case 'synthesizer':
      return `${label} overall ${(parsed as Synthesis).overall_verdict}`;
  }
}

export function gistOf(call: FinishedCall, label: string, parsed: unknown): string {
  const request = filesRequestOf(parsed);
  if (request) return `${label}: asks to read ${request.paths.join(', ')}`;
  const turn = toolTurnOf(call.role, parsed);
  if (turn) return `${label}: calls ${turn.tool_calls.map((c) => c.name).join(', ') || 'no tool'}`;
  return artifactGist(call.role, label, parsed);
}

type OnArtifact = (step: Step, call: FinishedCall, label: string, parsed: never) => void;

/** What a valid reply becomes, by the stage that asked for it. */
const ARTIFACT_BY_STAGE: Partial<Record<Stage, OnArtifact>> = {
  PROPOSE: onProposal,
  REVISE: onProposal,
  CRITIQUE: onCritique,
  IMPLEMENT: onImplementation,
  FIX: onImplementation,
  REVIEW: onReview,
  SYNTHESIZE: onSynthesis,
};

export function onArtifact(step: Step, call: FinishedCall, label: string, parsed: unknown): void {
  const request = filesRequestOf(parsed);
  if (request) return onFilesRequested(step, call, label, request);
  const turn = toolTurnOf(call.role, parsed);
  if (turn) return onEngineerTurn(step, call.id, label, turn);
  ARTIFACT_BY_STAGE[step.state.stage]?.(step, call, label, parsed as never);
}
