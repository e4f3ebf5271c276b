import type { Readiness, ReadinessCheck, Worksheet } from '@roundtable/contracts';

/**
 * Whether a worksheet version may be judged (issue 23): decided here, in code, before any call is
 * made, never by asking a model. A panel on a version that is not ready is refused with every
 * failing check named. Pure: the worksheet in, the checks out.
 */

/** Readiness' size limits: a panel prompt holds the whole worksheet, so it stays short. */
export const READINESS_LIMITS = { text: 2000, title: 120, item: 500, items: 20, evidence: 30 } as const;

/** Text that stands in for content: TBD, TODO, lorem ipsum, "...", "n/a", "?", "xxx" … (whole value, any case). */
const PLACEHOLDER = /^(?:tbd|tbc|todo|fixme|lorem\b.*|placeholder|n\/?a|none|null|undefined|\?+|\.+|…+|-+|_+|x+|\[.*\]|<.*>|coming soon|to be (?:decided|determined|done|confirmed|written))$/i;

/** Empty, blank, or a placeholder: not content a judge can score. */
export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v === '' || PLACEHOLDER.test(v) || /^(?:tbd|tbc|todo|fixme)\b/i.test(v)) return true;
  // "TBD." or "TODO!" the same as without the stop.
  const bare = v.replace(/[.!]+$/, '');
  return bare !== v && bare !== '' && PLACEHOLDER.test(bare);
}

const TEXT_FIELDS = [
  ['title', 'the idea\'s name'],
  ['problem', 'the problem it solves'],
  ['target_user', 'who it is for'],
  ['solution', 'what it is and how it works'],
] as const;

const LIST_FIELDS = ['assumptions', 'open_risks'] as const;

function check(name: string, path: string, ok: boolean, okMessage: string, failMessage: string): ReadinessCheck {
  return { check: name, path, ok, message: ok ? okMessage : failMessage };
}

/** Every check, passed or not, in a fixed order: the same worksheet always gives the same list. */
export function readinessChecks(w: Worksheet): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [];
  for (const [field, says] of TEXT_FIELDS) {
    const value = w[field];
    const blank = value.trim() === '';
    checks.push(
      check(
        `${field}_filled`,
        field,
        !isPlaceholder(value),
        `${field} is filled in`,
        blank ? `${field} is empty: write ${says}` : `${field} is a placeholder (${JSON.stringify(value.trim().slice(0, 40))}): write ${says}`,
      ),
    );
  }
  const cited = w.evidence.length > 0;
  checks.push(
    check(
      'evidence_cited',
      'evidence',
      cited !== w.no_evidence_yet,
      cited ? `cites ${w.evidence.join(', ')}` : 'says there is no evidence yet (no_evidence_yet)',
      cited
        ? 'evidence cites ledger entries and no_evidence_yet is true: say one or the other'
        : 'evidence cites no ledger entry: log one (POST /v1/ideas/:id/evidence) and cite its id, or say no_evidence_yet: true',
    ),
  );
  const assumptions = w.assumptions.filter((a) => !isPlaceholder(a));
  checks.push(
    check(
      'assumptions_listed',
      'assumptions',
      assumptions.length > 0 && assumptions.length === w.assumptions.length,
      `${assumptions.length} assumption(s) listed`,
      w.assumptions.length === 0 ? 'assumptions lists none: name what must be true for the idea to work' : `assumptions holds ${w.assumptions.length - assumptions.length} empty or placeholder item(s)`,
    ),
  );
  const risks = w.open_risks.filter((r) => isPlaceholder(r)).length;
  checks.push(check('open_risks_filled', 'open_risks', risks === 0, 'open_risks holds no placeholder', `open_risks holds ${risks} empty or placeholder item(s)`));
  checks.push(...sizeChecks(w));
  return checks;
}

function sizeChecks(w: Worksheet): ReadinessCheck[] {
  const L = READINESS_LIMITS;
  const over: string[] = [];
  const paths: string[] = [];
  const note = (path: string, what: string) => {
    paths.push(path);
    over.push(what);
  };
  if (w.title.length > L.title) note('title', `title is ${w.title.length} characters (at most ${L.title})`);
  for (const [field] of TEXT_FIELDS.slice(1)) if (w[field].length > L.text) note(field, `${field} is ${w[field].length} characters (at most ${L.text})`);
  for (const field of LIST_FIELDS) {
    if (w[field].length > L.items) note(field, `${field} holds ${w[field].length} items (at most ${L.items})`);
    w[field].forEach((item, i) => {
      if (item.length > L.item) note(`${field}.${i}`, `${field}.${i} is ${item.length} characters (at most ${L.item})`);
    });
  }
  if (w.evidence.length > L.evidence) note('evidence', `evidence cites ${w.evidence.length} entries (at most ${L.evidence})`);
  return [
    {
      check: 'size_limits',
      path: paths[0] ?? '',
      ok: over.length === 0,
      message: over.length === 0 ? 'within the size limits' : over.join('; '),
    },
  ];
}

/** The version's readiness: ready when every check passes. */
export function readinessOf(w: Worksheet): Readiness {
  const checks = readinessChecks(w);
  return { ready: checks.every((c) => c.ok), checks };
}

/** The failing checks as a 400's issues: each names its field and says what to do. */
export function readinessIssues(r: Readiness): { path: string; message: string; check: string }[] {
  return r.checks.filter((c) => !c.ok).map((c) => ({ path: c.path, message: c.message, check: c.check }));
}
