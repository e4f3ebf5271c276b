/**
 * The Idempotency-Key of a New run submission: one key for one project file's text, so a double
 * click (or a retry after a dropped reply) makes one run, and a new key once the text changes or
 * a run was made from it (submitting the same file again on purpose is a new run).
 */
export class SubmissionKey {
  private text: string | null = null;
  private key = '';

  constructor(private readonly newKey: () => string = randomKey) {}

  /** The key to send with this text: the last one while the text is the same. */
  for(text: string): string {
    if (text !== this.text) {
      this.text = text;
      this.key = this.newKey();
    }
    return this.key;
  }

  /** A run was made: the next submission, even of the same text, gets a new key. */
  used(): void {
    this.text = null;
  }
}

/**
 * 128 random bits in hex. Not crypto.randomUUID(): that exists only in a secure context, and a
 * workbench served over plain http from a host other than localhost is not one.
 */
function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
