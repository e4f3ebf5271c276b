/** Ids as the api mints them (`run_` + 10 hex) and agent call ids (`<run>-c<seq>`): a line that names one carries it as a field. */
const CALL_ID = /\b(run_[0-9a-f]{10})-c\d+\b/;
const RUN_ID = /\brun_[0-9a-f]{10}\b/;

/** A message longer than this is cut: a log line is no place for a reply or a prompt that slipped into an error. */
const MAX_MSG_CHARS = 4000;

const STACK = /^.+\n\s+at .+/s;

/** One log call as pino takes it: the message, and the fields beside it. */
export interface LogEntry {
  msg: string;
  /** context (null when none), run_id / call_id, the caller's own fields, stack. */
  fields: Record<string, unknown>;
}

function messageOf(message: unknown): { msg: string; fields: Record<string, unknown> } {
  if (message instanceof Error) return { msg: message.message, fields: { stack: message.stack } };
  if (message && typeof message === 'object' && !Array.isArray(message)) {
    const { msg, message: text, ...fields } = message as Record<string, unknown>;
    return { msg: String(msg ?? text ?? ''), fields };
  }
  return { msg: typeof message === 'string' ? message : JSON.stringify(message), fields: {} };
}

/**
 * A Nest logger call (`log(message, ...params)`) as a log entry. Nest's Logger appends its context
 * as the last string; error() may carry a stack before it. The run and call ids a message names
 * become fields, so a log pipeline can follow one run without parsing text.
 */
export function logEntryOf(message: unknown, params: unknown[]): LogEntry {
  const rest = [...params];
  const last = rest[rest.length - 1];
  const context = typeof last === 'string' && !STACK.test(last) ? (rest.pop() as string) : undefined;
  const stack = rest.find((p): p is string => typeof p === 'string' && STACK.test(p));
  const { msg, fields } = messageOf(message);
  const cut = msg.length > MAX_MSG_CHARS ? `${msg.slice(0, MAX_MSG_CHARS)}… (${msg.length - MAX_MSG_CHARS} chars cut)` : msg;
  const call = CALL_ID.exec(cut);
  const run = RUN_ID.exec(cut);
  return {
    msg: cut,
    fields: {
      context: context ?? null,
      ...(call ? { run_id: call[1], call_id: call[0] } : run ? { run_id: run[0] } : {}),
      ...fields,
      ...(stack && !fields.stack ? { stack } : {}),
    },
  };
}
