import type { LoggerService, LogLevel } from '@nestjs/common';
import { SecretRedactor, secretsFromEnv } from './log-redaction';

export type LogFormat = 'json' | 'text';

export interface ServiceLoggerOptions {
  service: string;
  /** json (default): one object per line for a log pipeline; text: one readable line, for a terminal. */
  format?: LogFormat;
  /** Levels written (Nest's names); default log, warn, error, fatal. */
  levels?: LogLevel[];
  redactor?: SecretRedactor;
  write?: (line: string) => void;
  now?: () => Date;
}

/** Nest's level names, as a log pipeline expects them. */
const LEVEL_NAME: Record<LogLevel, string> = { log: 'info', error: 'error', warn: 'warn', debug: 'debug', verbose: 'trace', fatal: 'fatal' };

/** Ids as the api mints them (`run_` + 10 hex) and agent call ids (`<run>-c<seq>`): a line that names one carries it as a field. */
const CALL_ID = /\b(run_[0-9a-f]{10})-c\d+\b/;
const RUN_ID = /\brun_[0-9a-f]{10}\b/;

/** A message longer than this is cut: a log line is no place for a reply or a prompt that slipped into an error. */
const MAX_MSG_CHARS = 4000;

const STACK = /^.+\n\s+at .+/s;

interface Entry {
  msg: string;
  fields: Record<string, unknown>;
}

function entryOf(message: unknown): Entry {
  if (message instanceof Error) return { msg: message.message, fields: { stack: message.stack } };
  if (message && typeof message === 'object' && !Array.isArray(message)) {
    const { msg, message: text, ...fields } = message as Record<string, unknown>;
    return { msg: String(msg ?? text ?? ''), fields };
  }
  return { msg: typeof message === 'string' ? message : JSON.stringify(message), fields: {} };
}

/**
 * Nest's LoggerService writing one JSON object per line: level, time, service, context, msg, and
 * run_id / call_id when the message is an object that gives them or names them in its text. Every
 * line passes the redactor, so an API key (by shape or by the value this process holds) never
 * reaches the log.
 *
 * `logger.log({ msg: 'agent call failed', call_id, run_id })` and `logger.log('… run_ab12… …')` both work.
 */
export class JsonLogger implements LoggerService {
  private readonly levels: Set<LogLevel>;
  private readonly redactor: SecretRedactor;
  private readonly write: (line: string) => void;
  private readonly now: () => Date;

  constructor(private readonly opts: ServiceLoggerOptions) {
    this.levels = new Set(opts.levels ?? ['log', 'warn', 'error', 'fatal']);
    this.redactor = opts.redactor ?? new SecretRedactor(secretsFromEnv(process.env));
    this.write = opts.write ?? ((line) => process.stdout.write(line));
    this.now = opts.now ?? (() => new Date());
  }

  log(message: unknown, ...params: unknown[]): void {
    this.emit('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.emit('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.emit('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.emit('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.emit('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.emit('fatal', message, params);
  }

  setLogLevels(levels: LogLevel[]): void {
    this.levels.clear();
    for (const l of levels) this.levels.add(l);
  }

  private emit(level: LogLevel, message: unknown, params: unknown[]): void {
    if (!this.levels.has(level)) return;
    // Nest's Logger appends its context as the last string; error() may carry a stack before it.
    const rest = [...params];
    const context = rest.length && typeof rest[rest.length - 1] === 'string' && !STACK.test(rest[rest.length - 1] as string) ? (rest.pop() as string) : undefined;
    const stack = rest.find((p): p is string => typeof p === 'string' && STACK.test(p));
    const { msg, fields } = entryOf(message);
    const cut = msg.length > MAX_MSG_CHARS ? `${msg.slice(0, MAX_MSG_CHARS)}… (${msg.length - MAX_MSG_CHARS} chars cut)` : msg;
    const call = CALL_ID.exec(cut);
    const record: Record<string, unknown> = {
      level: LEVEL_NAME[level],
      time: this.now().toISOString(),
      service: this.opts.service,
      context: context ?? null,
      msg: cut,
      ...(call ? { run_id: call[1], call_id: call[0] } : RUN_ID.test(cut) ? { run_id: RUN_ID.exec(cut)![0] } : {}),
      ...fields,
      ...(stack && !fields.stack ? { stack } : {}),
    };
    if (this.opts.format === 'text') {
      const ids = [record.run_id, record.call_id].filter(Boolean).join(' ');
      const line = `${record.time} ${String(record.level).toUpperCase().padEnd(5)} [${record.service}${context ? `/${context}` : ''}] ${cut}${ids ? `  (${ids})` : ''}${record.stack ? `\n${record.stack}` : ''}`;
      this.write(`${this.redactor.redact(line)}\n`);
      return;
    }
    this.write(`${this.redactor.redact(JSON.stringify(record))}\n`);
  }
}
