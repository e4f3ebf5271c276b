import { FilesRequested, type BuildRole, type Critique, type Implementation, type Proposal, type Review, type Synthesis } from '@roundtable/contracts';
import { emitCallFacts, onFailedReply, readReply } from '../engine/replies';
import type { FinishedCall } from './build-types';
import { buildDefinition } from './build-definition';
import type { Step } from './build-step';
import { onCritique, onProposal } from './debate.stage';
import { onFilesRequested } from './file-reads';
import { onImplementation, onReview } from './implement.stage';
import { onSynthesis } from './synthesize.stage';

/** A build reply: the engine reads it; what an artifact does is the stage's own rule. */

function gistOf(role: BuildRole, label: string, parsed: unknown): string {
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
    case 'validator': {
      const r = parsed as Review;
      return `${label} ${r.verdict} (${r.requirement_checks.filter((c) => c.satisfied).length}/${r.requirement_checks.length} checks satisfied)`;
    }
    case 'synthesizer':
      return `${label} overall ${(parsed as Synthesis).overall_verdict}`;
  }
}

export function onCallFinished(step: Step, call: FinishedCall): void {
  const awaited = buildDefinition.awaited(step, call);
  if (!awaited) return; // a stale or duplicate reply
  const { label } = awaited;
  const reply = readReply(call, buildDefinition.replySchema(call, awaited));

  // Reading before writing: the reply may be a request for files instead of the artifact.
  const request = reply.parsed === undefined ? null : FilesRequested.safeParse(reply.parsed);
  const filesRequest = request?.success ? request.data : null;
  emitCallFacts(step, call, label, reply, () =>
    filesRequest ? `${label}: asks to read ${filesRequest.paths.join(', ')}` : gistOf(call.role, label, reply.parsed),
  );

  if (reply.failure) return onFailedReply(step, buildDefinition, call, awaited, reply.failure);
  if (filesRequest) return onFilesRequested(step, call, label, filesRequest);

  const parsed = reply.parsed;
  switch (step.state.stage) {
    case 'PROPOSE':
    case 'REVISE':
      return onProposal(step, call, label, parsed as Proposal);
    case 'CRITIQUE':
      return onCritique(step, call, label, parsed as Critique);
    case 'IMPLEMENT':
    case 'FIX':
      return onImplementation(step, call, label, parsed as Implementation);
    case 'REVIEW':
      return onReview(step, call, label, parsed as Review);
    case 'SYNTHESIZE':
      return onSynthesis(step, call, label, parsed as Synthesis);
    default:
      return;
  }
}
