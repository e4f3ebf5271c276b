/**
 * Wraps untrusted text (an artifact, a model's reply, test output) so a model reads it as data
 * (seed §10 #4). Every artifact and test output enters a prompt only through this function.
 */
export type EvidenceTrust = 'untrusted' | 'trusted';

/*
 * An artifact must not be able to close its own block (or open a forged one) and continue as
 * instructions. A model reads `＜/evidence＞`, `〈/EVIDENCE〉` or `</evi\u200Bdence>` as the tag
 * as readily as `</evidence>`, so the comparison is made on a skeleton of the text, not on its
 * bytes: each character's compatibility decomposition (NFKD: fullwidth and mathematical letters
 * become ASCII, `＜` and `﹤` become `<`), lower-cased, with combining marks and default-ignorable
 * or format characters (zero-width spaces and joiners, word joiner, BOM, soft hyphen, variation
 * selectors, bidi controls, tag characters …) dropped, and a short table of lookalikes NFKD leaves
 * alone (angle brackets, slashes, Cyrillic and Greek letters that pass for those of "evidence").
 *
 * A tag is a `<` (in the skeleton) followed, across nothing but spaces and slashes (any kind,
 * either way, any number), by "evidence". Each such `<` in the original text becomes `&lt;`;
 * every other character is kept byte for byte: code has to stay readable and citable by line,
 * so `a <= evidence` or `<b>evidence</b>` are left alone.
 */

/**
 * Characters the model may take for `<` that NFKD does not turn into one (from Unicode's
 * confusables). Not « or 《: they quote text and titles (`« évidence »`), and are no bracket.
 */
const LESS_THAN_LOOKALIKES = new Set([...'\u02C2\u1438\u16B2\u2039\u227A\u276C\u276E\u27E8\u29FC\u3008\u{1D236}']);

/** Characters that pass for a slash or a backslash and that NFKD leaves as they are (ノ and 丿 are letters). */
const SLASH_LOOKALIKES = new Set([...'\u1735\u2044\u2215\u2571\u2572\u27CB\u27CD\u29F5\u29F8\u29F9\u30CE\u4E3F']);

/** Lookalikes of the letters of "evidence" that NFKD keeps apart from ASCII (Cyrillic, Greek, small capitals …). */
const LETTER_LOOKALIKES: Record<string, string> = {
  ...Object.fromEntries([...'\u0435\u0454\u04BD\u1D07\u212E'].map((c) => [c, 'e'])),
  ...Object.fromEntries([...'\u03BD\u0475\u1D20'].map((c) => [c, 'v'])),
  ...Object.fromEntries([...'\u0131\u0269\u026A\u03B9\u0456\u04CF'].map((c) => [c, 'i'])),
  ...Object.fromEntries([...'\u0501\u13E7\u1D05'].map((c) => [c, 'd'])),
  ...Object.fromEntries([...'\u0274\u0578\u057C'].map((c) => [c, 'n'])),
  ...Object.fromEntries([...'\u0441\u03F2\u1D04'].map((c) => [c, 'c'])),
};

/** Dropped from the skeleton: they are invisible, or only decorate the letter before them. */
const INVISIBLE = /[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const SPACE = /[\s\p{Z}]/u;
const NON_ASCII = /[^\u0000-\u007F]/;
const WORD = 'evidence';

/**
 * The skeleton as one UTF-16 unit a character, which is all the scan needs: ASCII as itself
 * (lower-cased), a lookalike as what it passes for (`<`, `/`, a letter of the word), any other
 * space as a space, anything else as `#` (it ends a run, and is no letter of the word).
 * `origin(i)`: the original character skeleton character i came from (UTF-16 offset, length).
 */
interface Skeleton {
  text: string;
  origin(i: number): { at: number; len: number };
}

function skeletonChar(ch: string): string {
  if (ch < '\u0080') return ch;
  if (LESS_THAN_LOOKALIKES.has(ch)) return '<';
  if (SLASH_LOOKALIKES.has(ch)) return '/';
  return LETTER_LOOKALIKES[ch] ?? (SPACE.test(ch) ? ' ' : '#');
}

/** A run of ASCII, or one character (code point, or lone surrogate) outside it. */
const ASCII_RUN_OR_CHAR = /[\u0000-\u007F]+|[^\u0000-\u007F]/gu;

function skeleton(text: string): Skeleton {
  if (!NON_ASCII.test(text)) {
    // ASCII decomposes to itself and holds no invisible character: only its case needs folding.
    return { text: text.toLowerCase(), origin: (i) => ({ at: i, len: 1 }) };
  }
  let out = '';
  const at: number[] = [];
  const len: number[] = [];
  let offset = 0;
  for (const [original] of text.matchAll(ASCII_RUN_OR_CHAR)) {
    if (original.charCodeAt(0) < 0x80) {
      // A run of ASCII, as the fast path above: each character is itself, lower-cased.
      out += original.toLowerCase();
      for (let i = 0; i < original.length; i++) {
        at.push(offset + i);
        len.push(1);
      }
    } else {
      for (const ch of original.normalize('NFKD').toLowerCase().normalize('NFKD')) {
        if (INVISIBLE.test(ch)) continue;
        out += skeletonChar(ch);
        at.push(offset);
        len.push(original.length);
      }
    }
    offset += original.length;
  }
  return { text: out, origin: (i) => ({ at: at[i], len: len[i] }) };
}

const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');
const LOOKALIKE_LETTER_ALL = new RegExp(`[${Object.keys(LETTER_LOOKALIKES).join('')}]`, 'gu');

/**
 * Whether the skeleton can hold the word, from the whole text at once (the native normalisation
 * is much faster than one character at a time): most text cannot, and skips the exact pass.
 * Never wrong that way: decomposing the whole text differs from decomposing each character only
 * in the order of combining marks, and the marks are dropped.
 */
function mayHoldWord(text: string): boolean {
  if (!NON_ASCII.test(text)) return /evidence/i.test(text);
  const folded = text.normalize('NFKD').toLowerCase().normalize('NFKD').replace(INVISIBLE_ALL, '');
  return folded.replace(LOOKALIKE_LETTER_ALL, (c) => LETTER_LOOKALIKES[c]).includes(WORD);
}

/** What may stand between a tag's `<` and its name: spaces, slashes, and more `<`s. */
const IN_TAG_RUN = new Set([...' \t\n\r\f\v/\\<']);

/**
 * Where the text holds something that reads as an evidence tag's `<`: the UTF-16 offset and
 * length of each such character, in order. Empty for text that holds no tag.
 */
export function evidenceTagOpenings(text: string): { at: number; len: number }[] {
  if (!mayHoldWord(text)) return [];
  const sk = skeleton(text);
  const found: { at: number; len: number }[] = [];
  for (let i = sk.text.indexOf(WORD); i !== -1; i = sk.text.indexOf(WORD, i + WORD.length)) {
    // Walk back over the run of spaces, slashes and `<`s before the word; each `<` in it opens a
    // tag. Runs walked from two matches never overlap (a match is letters): the scan is linear.
    const run: { at: number; len: number }[] = [];
    for (let j = i - 1; j >= 0 && IN_TAG_RUN.has(sk.text[j]); j--) {
      if (sk.text[j] === '<') run.push(sk.origin(j));
    }
    for (let k = run.length - 1; k >= 0; k--) {
      // One original character can decompose into two `<`s; it is neutralised once.
      if (found.length === 0 || found[found.length - 1].at !== run[k].at) found.push(run[k]);
    }
  }
  return found;
}

export function neutraliseEvidenceTags(content: string): string {
  const openings = evidenceTagOpenings(content);
  if (!openings.length) return content;
  let out = '';
  let from = 0;
  for (const { at, len } of openings) {
    out += `${content.slice(from, at)}&lt;`;
    from = at + len;
  }
  return out + content.slice(from);
}

/** An attribute value the escapes below leave as it is and that holds no `<` of any kind: a label, a type. */
const PLAIN_ATTRIBUTE = /^[A-Za-z0-9_.:-]*$/;

function attribute(value: string): string {
  if (PLAIN_ATTRIBUTE.test(value)) return value;
  const escaped = value
    .replace(/&/g, '&amp;')
    .replace(/["\uFF02]/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\r\n\u0085\u2028\u2029]+/g, ' ');
  // A lookalike `<` is left by the escapes above; a path like `a〈/evidence〉` must not close the block either.
  return neutraliseEvidenceTags(escaped);
}

export function evidenceBlock(id: string, type: string, content: string, trust: EvidenceTrust = 'untrusted'): string {
  return wrapEvidence(id, type, neutraliseEvidenceTags(content), trust);
}

/**
 * evidenceBlock(id, type, content) of a content already scanned and found to hold no tag opening
 * (evidenceTagOpenings(content) is empty: the caller remembers that, e.g. a record scanned when it
 * was recorded): the same block, without scanning the content again.
 */
export function scannedEvidenceBlock(id: string, type: string, content: string): string {
  return wrapEvidence(id, type, content, 'untrusted');
}

function wrapEvidence(id: string, type: string, neutralised: string, trust: EvidenceTrust): string {
  return `<evidence id="${attribute(id)}" type="${attribute(type)}" trust="${trust}">\n${neutralised}\n</evidence>`;
}
