import { boundHeapGrowth } from './heap-growth';

describe('boundHeapGrowth: the heap grows by a set percentage over what a full collection kept', () => {
  const set = () => {
    const flags: string[] = [];
    return { flags, setFlags: (f: string) => void flags.push(f) };
  };

  it('sets V8 --heap-growing-percent when node was given none', () => {
    const { flags, setFlags } = set();
    expect(boundHeapGrowth(30, ['--enable-source-maps', '--max-semi-space-size=8'], setFlags)).toBe('--heap-growing-percent=30');
    expect(flags).toEqual(['--heap-growing-percent=30']);
    expect(boundHeapGrowth(30, [], setFlags)).toBe('--heap-growing-percent=30');
  });

  it.each([
    ['with its value', ['--heap-growing-percent=80']],
    ['in V8 spelling', ['--require', 'x.js', '--heap_growing_percent=80']],
    ['its value apart', ['--heap-growing-percent', '80']],
  ])("keeps the operator's own flag on node's command line, %s", (_, execArgv) => {
    const { flags, setFlags } = set();
    expect(boundHeapGrowth(30, execArgv, setFlags)).toBeNull();
    expect(flags).toEqual([]);
  });

  it('does not take a similar flag for it', () => {
    const { flags, setFlags } = set();
    boundHeapGrowth(30, ['--heap-growing-percentage=80'], setFlags);
    expect(flags).toEqual(['--heap-growing-percent=30']);
  });

  it('refuses a percentage that is not a positive integer', () => {
    for (const p of [0, -5, 2.5, NaN]) expect(() => boundHeapGrowth(p, [], () => undefined)).toThrow(/positive integer/);
  });
});
