/**
 * Wraps untrusted text (an artifact, a model's reply, test output) so a model reads it as data
 * (seed §10 #4). Every artifact and test output enters a prompt only through this function.
 */
export type EvidenceTrust = 'untrusted' | 'trusted';

/**
 * An artifact must not be able to close its own block (or open a forged one) and continue as
 * instructions, so any `<evidence` / `</evidence` tag inside the content loses its `<`.
 * Everything else is kept verbatim: code has to stay readable and citable by line.
 */
const EVIDENCE_TAG = /<(?=\s*\/?\s*evidence)/gi;

export function neutraliseEvidenceTags(content: string): string {
  return content.replace(EVIDENCE_TAG, '&lt;');
}

function attribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\r\n]+/g, ' ');
}

export function evidenceBlock(id: string, type: string, content: string, trust: EvidenceTrust = 'untrusted'): string {
  return `<evidence id="${attribute(id)}" type="${attribute(type)}" trust="${trust}">\n${neutraliseEvidenceTags(content)}\n</evidence>`;
}
