import { mayReadWorkspace, type FilesRequested } from '@roundtable/contracts';
import type { FileReadRecord, FinishedCall, ReadFile } from './build-types';
import { freshSpec, requestCall } from './build-calls';
import { alreadyRecorded, awaitedRole } from './build-definition';
import { latestImplementation, latestProposal, type Step } from './build-step';
import { isSolo } from './solo';
import { criticPack, engineerPack, fileReadsFor, fileRequestLimits, validatorPack } from './context-packs';

/** Reading before writing (issue 4): a role's request for files, and the question asked again once they are read. */

/**
 * The critic, engineer or validator asked to read files before answering: the test-runner
 * reads them (path-checked, size-capped) and the same question is asked again with the files
 * in the prompt. The request call is a recorded, budgeted call like any other; the number of
 * requests per answer is bounded (`file_requests.max_rounds`), after which the reply schema no
 * longer offers the request and the role must answer.
 */
export function onFilesRequested(step: Step, call: FinishedCall, label: string, request: FilesRequested): void {
  const unique = [...new Set(request.paths)];
  if (!mayReadWorkspace(step.config, call.role)) return refuseFilesRequest(step, call, label, request, unique);
  const limits = fileRequestLimits(step.state);
  const record: FileReadRecord = {
    opId: step.opId(),
    label,
    role: call.role,
    callId: call.id,
    paths: unique.slice(0, limits.max_files),
    reason: request.reason ?? null,
    refused: unique.slice(limits.max_files),
    files: null,
  };
  step.state.fileReads = [...(step.state.fileReads ?? []), record];
  const { files: _notReadYet, ...asked } = record;
  step.commands.push({ kind: 'workspace.read', ...asked, maxBytesPerFile: limits.max_bytes_per_file });
  step.emit('files_requested', {
    role: call.role,
    label,
    call_id: call.id,
    paths: record.paths,
    round: fileReadsFor(step.state, label).length,
    ...(record.refused.length ? { refused: record.refused } : {}),
  });
}

/**
 * A role with `workspace: none` asked for files anyway (its prompt offered no reading and its
 * schema no request; a reply can still arrive as one, e.g. from a call queued under another
 * schema). Like paths past the per-request limit: nothing is read, the request is recorded with
 * every path refused, and the same question is asked again with a note saying why.
 */
function refuseFilesRequest(step: Step, call: FinishedCall, label: string, request: FilesRequested, paths: string[]): void {
  const record: FileReadRecord = { opId: step.opId(), label, role: call.role, callId: call.id, paths: [], reason: request.reason ?? null, refused: paths, files: [] };
  step.state.fileReads = [...(step.state.fileReads ?? []), record];
  step.emit('files_requested', { role: call.role, label, call_id: call.id, paths: [], round: fileReadsFor(step.state, label).length, refused: paths });
  askAgain(step, record);
}

export function onFilesRead(step: Step, opId: string, files: ReadFile[]): void {
  const reads = step.state.fileReads ?? [];
  const i = reads.findIndex((r) => r.opId === opId);
  if (i < 0) return;
  const record: FileReadRecord = { ...reads[i], files };
  step.state.fileReads = reads.map((r, j) => (j === i ? record : r));
  step.emit('files_read', {
    label: record.label,
    files: files.map((f) => ({ path: f.path, bytes: f.bytes, truncated: f.truncated, error: f.error })),
  });
  askAgain(step, record);
}

/** The question a file request interrupted, asked again with what was read (or refused) in the prompt. */
function askAgain(step: Step, record: FileReadRecord): void {
  // The run moved on (cancelled, halted, resumed elsewhere): the files are on record, nobody is asked.
  if (awaitedRole(step.state) !== record.role || alreadyRecorded(step.state, record.role, record.label)) return;
  const proposal = latestProposal(step.state);
  const impl = latestImplementation(step.state);
  switch (record.role) {
    case 'critic':
      if (proposal) requestCall(step, freshSpec(step, 'critic', record.label, null, criticPack(step.state, proposal, record.label)));
      return;
    case 'engineer':
      if (proposal || isSolo(step.state)) requestCall(step, freshSpec(step, 'engineer', record.label, null, engineerPack(step.state, proposal ?? null, record.label)));
      return;
    case 'validator':
      if (impl) requestCall(step, freshSpec(step, 'validator', record.label, null, validatorPack(step.state, impl, record.label)));
      return;
    default:
      return;
  }
}

