import { ProviderError } from '../provider';

const USAGE_LIMIT = /usage limit|hit your limit|(?<!rate )limit (reached|exceeded)|out of credits|credit balance|insufficient_quota|quota|upgrade to (pro|plus|max)/i;
const RATE_LIMIT = /\b429\b|rate.?limit|too many requests/i;
const AUTH = /\b40[13]\b|unauthori[sz]ed|forbidden|invalid (api )?key|authentication|not logged in|\/login|log ?in again|token (has )?expired|invalid credentials|permission denied/i;
const SERVER = /\b5\d\d\b|overloaded|internal server error|service unavailable|bad gateway/i;
const NETWORK = /ECONNRESET|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|network error|connection (error|reset|refused)|stream disconnected|fetch failed/i;
const NO_MODEL = /\bmodels?\b[^\n]*\b(not found|does not exist|not supported|unavailable|may not exist)|unknown model|invalid model/i;

function statusIn(text: string): number | null {
  const m = /(?:API Error|status(?: code)?|HTTP)[:\s]+(\d{3})\b/i.exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * Turns a CLI's own failure words into a ProviderError, keeping those words. A usage limit
 * (the subscription's 5-hour or weekly window) is checked first: it ends the step, while a
 * rate limit, a 5xx or a dropped connection may pass on a retry.
 */
export function cliFailure(provider: string, cli: string, words: string, exitCode: number | null): ProviderError {
  const text = words.trim().slice(0, 4000) || `exited with code ${exitCode} and printed nothing`;
  const msg = `${provider} (${cli} CLI${exitCode === null ? '' : `, exit ${exitCode}`}): ${text}`;
  const status = statusIn(text);
  if (USAGE_LIMIT.test(text)) return new ProviderError('USAGE_LIMIT', msg, false, status);
  if (RATE_LIMIT.test(text)) return new ProviderError('RATE_LIMITED', msg, true, status ?? 429);
  if (AUTH.test(text)) return new ProviderError('AUTH', msg, false, status);
  if (NO_MODEL.test(text)) return new ProviderError('NOT_FOUND', msg, false, status);
  if (SERVER.test(text)) return new ProviderError('SERVER_ERROR', msg, true, status);
  if (NETWORK.test(text)) return new ProviderError('NETWORK', msg, true, status);
  return new ProviderError('CLI_FAILED', msg, false, status);
}
