/**
 * What a Gemini 429 (RESOURCE_EXHAUSTED) says about waiting, read from its google.rpc
 * details: a rate limit passes (retry after RetryInfo's retryDelay, or the retry-after
 * header), a spent quota does not (a day's quota, a tier with no quota for the model, billing).
 * Every 429 body says "quota" — the per-minute one too, and the bare "Resource has been
 * exhausted (e.g. check quota)." — so the word alone decides nothing.
 */

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface GeminiQuota {
  verdict: 'rate' | 'spent';
  retryAfterS: number | null;
}

/** ErrorInfo reasons (google.rpc.ErrorInfo, domain googleapis.com) that waiting will not cure. */
const SPENT_REASONS = new Set(['RESOURCE_QUOTA_EXCEEDED', 'RESOURCE_EXHAUSTED', 'BILLING_DISABLED', 'BILLING_NOT_ACTIVE']);
/** A quota counted per day (GenerateRequestsPerDayPerProjectPerModel-FreeTier …). */
const DAILY = /PerDay/i;
/** Said when the quota or the prepaid credit is spent and no retry delay is given. */
const SPENT_WORDS = /exceeded your current quota|billing|prepay|credits? (are|is) (depleted|exhausted)/i;

/** RetryInfo's retryDelay ("27s", "33.6s") in seconds. */
function retryDelayS(details: readonly unknown[]): number | null {
  for (const d of details) {
    if (isObj(d) && typeof d.retryDelay === 'string') {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay);
      if (m) return Number(m[1]);
    }
  }
  return null;
}

const typed = (details: readonly unknown[], type: string) => details.filter((d): d is Record<string, unknown> => isObj(d) && String(d['@type'] ?? '').endsWith(type));

export function geminiQuota(error: { message: string; details?: unknown }, headerRetryAfterS: number | null): GeminiQuota {
  const details = Array.isArray(error.details) ? error.details : [];
  const retryAfterS = retryDelayS(details) ?? headerRetryAfterS;
  const rate: GeminiQuota = { verdict: 'rate', retryAfterS };
  const spent: GeminiQuota = { verdict: 'spent', retryAfterS: null };

  const reasons = typed(details, 'google.rpc.ErrorInfo').map((d) => String(d.reason ?? ''));
  if (reasons.includes('RATE_LIMIT_EXCEEDED')) return rate;
  if (reasons.some((r) => SPENT_REASONS.has(r))) return spent;

  const violations = typed(details, 'google.rpc.QuotaFailure').flatMap((d) => (Array.isArray(d.violations) ? d.violations.filter(isObj) : []));
  if (violations.length > 0) {
    // A daily quota resets hours away, and a limit of 0 never lets a request through.
    const hopeless = violations.some((v) => DAILY.test(`${v.quotaId ?? ''} ${v.quotaMetric ?? ''}`) || String(v.quotaValue ?? '') === '0');
    return hopeless ? spent : rate;
  }
  if (retryAfterS !== null) return rate;
  return SPENT_WORDS.test(error.message) ? spent : rate;
}
