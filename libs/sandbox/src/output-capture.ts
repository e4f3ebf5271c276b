/**
 * Bounded capture of a byte stream: keeps the first `headBytes` and the last `tailBytes`
 * and counts what fell in between. A test run that prints gigabytes must not take the
 * runner's memory with it, yet the end (where test summaries live) is never lost.
 */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.headBytes - this.headLength;
    if (room > 0) {
      const taken = chunk.subarray(0, room);
      this.head.push(taken);
      this.headLength += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailLength += chunk.length;
    while (this.tail.length > 1 && this.tailLength - this.tail[0].length >= this.tailBytes) {
      this.tailLength -= (this.tail.shift() as Buffer).length;
    }
  }

  get elidedBytes(): number {
    return this.total - this.headLength - Math.min(this.tailLength, this.tailBytes);
  }

  /** Everything kept, with a marker where the middle was dropped. */
  text(): string {
    const tail = this.tailBuffer();
    if (this.elidedBytes === 0) return Buffer.concat([...this.head, tail]).toString('utf8');
    return (
      Buffer.concat(this.head).toString('utf8') +
      `\n[... ${this.elidedBytes} bytes of output elided ...]\n` +
      decodeFromCharBoundary(tail)
    );
  }

  /** The last `n` bytes of the whole stream (n must not exceed `tailBytes`). */
  last(n: number): string {
    const kept = this.elidedBytes === 0 ? Buffer.concat([...this.head, this.tailBuffer()]) : this.tailBuffer();
    return decodeFromCharBoundary(kept.subarray(Math.max(0, kept.length - n)));
  }

  private tailBuffer(): Buffer {
    const joined = Buffer.concat(this.tail);
    return joined.subarray(Math.max(0, joined.length - this.tailBytes));
  }
}

/** A cut can land inside a multi-byte character; skip its continuation bytes instead of printing U+FFFD. */
function decodeFromCharBoundary(buf: Buffer): string {
  let start = 0;
  while (start < Math.min(3, buf.length) && (buf[start] & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString('utf8');
}
