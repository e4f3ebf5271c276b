import type { LoggerService, LogLevel } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { REDACTED, SECRET_KEY_PATHS, SecretRedactor, secretsFromEnv } from './log-redaction';
import { logEntryOf } from './log-entry';
import { textLogStream } from './text-log-stream';

export type LogFormat = 'json' | 'text';

export interface ServiceLoggerOptions {
  service: string;
  /** json (default): one object per line for a log pipeline; text: one readable line, for a terminal (development: needs pino-pretty). */
  format?: LogFormat;
  /** Levels written (Nest's names); default log, warn, error, fatal. */
  levels?: LogLevel[];
  redactor?: SecretRedactor;
  /** Where lines go; default stdout (synchronously, so the last line before an exit is not lost). */
  write?: (line: string) => void;
  now?: () => Date;
}

/** Nest's level names, as a log pipeline expects them (pino's labels). */
const PINO_LEVEL: Record<LogLevel, pino.Level> = { log: 'info', error: 'error', warn: 'warn', debug: 'debug', verbose: 'trace', fatal: 'fatal' };

/**
 * Nest's LoggerService on pino, writing one JSON object per line: level, time, service, context,
 * msg, and run_id / call_id when the message is an object that gives them or names them in its
 * text (log-entry.ts). Secrets are kept out twice: pino's `redact` censors values under known
 * secret keys (SECRET_KEY_PATHS), and every serialized line passes the redactor, so an API key (by
 * shape or by the value this process holds) never reaches the log.
 *
 * pino directly rather than nestjs-pino: our loggers exist before Nest does (main.ts hands one to
 * NestFactory, so boot lines are formatted too), three of the four services have no HTTP for
 * pino-http to log, and the fields above are ours either way.
 *
 * `logger.log({ msg: 'agent call failed', call_id, run_id })` and `logger.log('… run_ab12… …')` both work.
 */
export class JsonLogger implements LoggerService {
  private readonly levels: Set<LogLevel>;
  private readonly pino: PinoLogger;

  constructor(opts: ServiceLoggerOptions) {
    this.levels = new Set(opts.levels ?? ['log', 'warn', 'error', 'fatal']);
    const redactor = opts.redactor ?? new SecretRedactor(secretsFromEnv(process.env));
    const now = opts.now ?? (() => new Date());
    const sink: DestinationStream = opts.write ? { write: opts.write } : pino.destination({ dest: 1, sync: true });
    this.pino = pino(
      {
        // Nest's levels are a set (setLogLevels may leave gaps), so the set filters and pino passes all.
        level: 'trace',
        base: { service: opts.service },
        timestamp: () => `,"time":"${now().toISOString()}"`,
        formatters: { level: (label) => ({ level: label }) },
        redact: { paths: [...SECRET_KEY_PATHS], censor: REDACTED },
        hooks: { streamWrite: (line) => redactor.redact(line) },
      },
      opts.format === 'text' ? textLogStream(sink, !opts.write && process.stdout.isTTY === true && !process.env.NO_COLOR) : sink,
    );
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
    const { msg, fields } = logEntryOf(message, params);
    this.pino[PINO_LEVEL[level]](fields, msg);
  }
}
