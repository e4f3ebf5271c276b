import { EntityNotFoundError } from 'typeorm';
import { WorkspaceOpRowError } from '@roundtable/contracts';

/**
 * Node's socket errors and Postgres' SQLSTATEs that mean "the database or Redis is not there
 * right now" (a restart, a failover, a network blip), not "this job is wrong".
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, class 08 (connection
 * exception), 53300 too_many_connections.
 */
const INFRA_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', '57P01', '57P02', '57P03', '53300']);

/** node-postgres and ioredis say these without a code. */
const INFRA_MESSAGES = [
  /connection terminated/i,
  /terminating connection due to administrator command/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /Client has encountered a connection error and is not queryable/i,
  /timeout exceeded when trying to connect/i,
  /Connection is closed/i,
  /connect ECONNREFUSED/i,
  /read ECONNRESET/i,
];

/**
 * True when an error (or what it wraps: TypeORM's driverError, an Error's cause, an
 * AggregateError's errors) comes from Postgres or Redis being unreachable. Such a failure says
 * nothing about the job: it is retried for as long as a restart takes (INFRA_RETRY).
 */
export function isInfraError(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 4) return false;
  const err = e as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown };
  if (typeof err.code === 'string' && (INFRA_CODES.has(err.code) || err.code.startsWith('08'))) return true;
  if (typeof err.message === 'string' && INFRA_MESSAGES.some((re) => re.test(err.message as string))) return true;
  if (Array.isArray(err.errors) && err.errors.some((x) => isInfraError(x, depth + 1))) return true;
  return isInfraError(err.driverError, depth + 1) || isInfraError(err.cause, depth + 1);
}

/** The reason BullMQ recorded for a failed job, as isInfraError would judge the error (the reconciler reads only the text). */
export function isInfraFailureReason(reason: string | undefined): boolean {
  return !!reason && (INFRA_MESSAGES.some((re) => re.test(reason)) || [...INFRA_CODES].some((c) => reason.includes(c)));
}

/**
 * Failures no retry can fix: the row a job names does not exist (TypeORM's findOneByOrFail), or
 * a finished workspace op's row is not what its kind says (WorkspaceOpRowError: a done row is
 * never written again, so it reads the same on every retry). The typed worker turns them into
 * UnrecoverableError, so BullMQ fails the job at once.
 */
export function isPermanentJobError(e: unknown): boolean {
  return e instanceof EntityNotFoundError || e instanceof WorkspaceOpRowError;
}
