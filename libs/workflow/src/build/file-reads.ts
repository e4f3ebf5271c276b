import type { FilesRequested } from '@roundtable/contracts';
import type { FileReadRecord, FinishedCall, ReadFile } from './build-types';
import { freshSpec, requestCall } from './build-calls';
import { alreadyRecorded, ROLE_BY_STAGE } from './build-definition';
import { latestImplementation, latestProposal, type Step } from './build-step';
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
  const limits = fileRequestLimits(step.state);
  const unique = [...new Set(request.paths)];
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
  // The run moved on (cancelled, halted, resumed elsewhere): the files are on record, nobody is asked.
  if (ROLE_BY_STAGE[step.state.stage] !== record.role || alreadyRecorded(step.state, record.role, record.label)) return;
  const proposal = latestProposal(step.state);
  const impl = latestImplementation(step.state);
  switch (record.role) {
    case 'critic':
      if (proposal) requestCall(step, freshSpec(step, 'critic', record.label, null, criticPack(step.state, proposal, record.label)));
      return;
    case 'engineer':
      if (proposal) requestCall(step, freshSpec(step, 'engineer', record.label, null, engineerPack(step.state, proposal, record.label)));
      return;
    case 'validator':
      if (impl) requestCall(step, freshSpec(step, 'validator', record.label, null, validatorPack(step.state, impl, record.label)));
      return;
    default:
      return;
  }
}

