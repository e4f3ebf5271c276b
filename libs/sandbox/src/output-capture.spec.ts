import { OutputCapture } from './output-capture';

describe('OutputCapture', () => {
  it('keeps everything when under the caps', () => {
    const c = new OutputCapture(10, 5);
    c.push(Buffer.from('hello '));
    c.push(Buffer.from('world'));
    expect(c.text()).toBe('hello world');
    expect(c.elidedBytes).toBe(0);
    expect(c.last(3)).toBe('rld');
  });

  it('keeps head and tail and marks the elided middle', () => {
    const c = new OutputCapture(4, 4);
    for (const part of ['HEAD', 'middle-', 'more-', 'TAIL']) c.push(Buffer.from(part));
    expect(c.elidedBytes).toBe(12);
    expect(c.text()).toBe('HEAD\n[... 12 bytes of output elided ...]\nTAIL');
    expect(c.last(2)).toBe('IL');
  });

  it('tail spans chunk boundaries', () => {
    const c = new OutputCapture(0, 6);
    for (const part of ['abc', 'def', 'ghi']) c.push(Buffer.from(part));
    expect(c.last(6)).toBe('defghi');
    expect(c.last(4)).toBe('fghi');
  });

  it('does not start the tail inside a multi-byte character', () => {
    const c = new OutputCapture(0, 100);
    c.push(Buffer.from('xé€'));
    // last 3 bytes: second byte of é is a continuation byte, then € is 3 bytes → skip to a boundary
    expect(c.last(4)).toBe('€');
  });
});
