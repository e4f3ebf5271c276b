import { UsageError } from './cli-args';

export interface CallRef {
  runId: string;
  callId: string;
}

/**
 * Which run a call belongs to. The API's route needs both ids; a user usually has only the
 * call id (from `calls`), and call ids are `<run id>-c<n>`, so the run id can be read off it.
 * Accepted: `<run>/<call>`, `<call> --run <run>`, or a bare `<run>-c<n>`.
 */
export function resolveCallRef(call: string, runOption?: string): CallRef {
  const slash = call.indexOf('/');
  if (slash !== -1) {
    const runId = call.slice(0, slash);
    const callId = call.slice(slash + 1);
    if (!runId || !callId || callId.includes('/')) throw new UsageError(`a call is <run>/<call> or <call>, got ${call}`, 'call-show');
    if (runOption && runOption !== runId) throw new UsageError(`${call} names run ${runId} but --run says ${runOption}`, 'call-show');
    return { runId, callId };
  }
  if (runOption) return { runId: runOption, callId: call };
  const m = /^(.+)-c\d+$/.exec(call);
  if (!m) {
    throw new UsageError(`cannot tell which run ${call} belongs to: give it as <run>/<call> or add --run <run>`, 'call-show');
  }
  return { runId: m[1], callId: call };
}
