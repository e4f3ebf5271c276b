import { LiveOutput } from './live-output';

function sink(columns?: number) {
  let text = '';
  return { stream: { write: (s: string) => (text += s), columns }, text: () => text };
}

describe('LiveOutput', () => {
  it('on a TTY redraws the progress line in place and clears it before lines and at the end', () => {
    const out = sink();
    const live = new LiveOutput(out.stream, true);
    live.lines(['a']);
    live.progress('p1');
    live.progress('p2');
    live.progress('p2'); // unchanged: not redrawn
    live.lines(['b', 'c']);
    live.progress('p3');
    live.finish();
    expect(out.text()).toBe('a\np1\r\x1b[2Kp2\r\x1b[2Kb\nc\np3\r\x1b[2K');
  });

  it('elsewhere prints progress as an ordinary line and writes no control codes', () => {
    const out = sink();
    const live = new LiveOutput(out.stream, false);
    live.lines(['a']);
    live.progress('p1');
    live.lines(['b']);
    live.finish();
    expect(out.text()).toBe('a\np1\nb\n');
  });

  it('cuts a progress line that would wrap on a narrow terminal', () => {
    const out = sink(12);
    const live = new LiveOutput(out.stream, true);
    live.progress('\x1b[2mbudget: calls 3/16\x1b[22m');
    expect(out.text()).toBe('budget: ca…');
  });
});
