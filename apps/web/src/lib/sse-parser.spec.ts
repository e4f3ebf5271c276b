import { SseParser } from './sse-parser';

const frame = (seq: number, type: string) => `id: ${seq}\nevent: ${type}\ndata: {"sequence":${seq},"type":"${type}"}\n\n`;

describe('SseParser', () => {
  it('parses whole frames, their id, event and data', () => {
    const r = new SseParser().push(frame(1, 'run_created') + frame(2, 'run_started'));
    expect(r.frames).toEqual([
      { id: '1', event: 'run_created', data: '{"sequence":1,"type":"run_created"}' },
      { id: '2', event: 'run_started', data: '{"sequence":2,"type":"run_started"}' },
    ]);
  });

  it('gives the same frames however the text is split into chunks, CRLF included', () => {
    const text = (frame(1, 'a') + ': heartbeat\n\n' + frame(2, 'b')).replace(/\n/g, '\r\n');
    const whole = new SseParser().push(text).frames;
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser();
      const frames = [...p.push(text.slice(0, cut)).frames, ...p.push(text.slice(cut)).frames];
      expect(frames).toEqual(whole);
    }
    expect(whole.map((f) => f.id)).toEqual(['1', '2']);
  });

  it('counts heartbeat comments and reads retry, without making frames of them', () => {
    const r = new SseParser().push(': heartbeat\n\nretry: 2500\n\n');
    expect(r.frames).toEqual([]);
    expect(r.comments).toBe(1);
    expect(r.retryMs).toBe(2500);
  });

  it('joins multi-line data and names an unnamed frame "message"', () => {
    const r = new SseParser().push('data: one\ndata:two\n\n');
    expect(r.frames).toEqual([{ id: null, event: 'message', data: 'one\ntwo' }]);
  });

  it('holds back an unfinished frame until its blank line arrives', () => {
    const p = new SseParser();
    expect(p.push('id: 3\nevent: x\ndata: {}\n').frames).toEqual([]);
    expect(p.push('\n').frames).toEqual([{ id: '3', event: 'x', data: '{}' }]);
  });

  it('ignores a non-numeric retry', () => {
    expect(new SseParser().push('retry: soon\n\n').retryMs).toBeNull();
  });
});
