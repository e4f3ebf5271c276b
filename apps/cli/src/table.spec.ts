import { ellipsize, fitWidths, renderTable } from './table';
import { styleFor } from './terminal';

const plain = styleFor({ write: () => undefined }, {});

describe('renderTable', () => {
  it('fits 80 columns by cutting the widest column first, with an ellipsis', () => {
    const rows = [['run_1', 'done', 'a project whose name goes on and on and on and on and on and on and on', '2026-12-01T19:00:00Z']];
    const lines = renderTable([{ header: 'RUN' }, { header: 'STATUS' }, { header: 'PROJECT' }, { header: 'CREATED' }], rows, plain);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toContain('a project whose name');
    expect(lines[1]).toContain('…  2026-12-01T19:00:00Z');
    expect(lines[1]).toMatch(/^run_1 {2}done {4}/);
  });

  it('leaves a table that fits as it was', () => {
    expect(renderTable([{ header: 'A' }, { header: 'B', align: 'right' }], [['x', '12']], plain)).toEqual(['A   B', 'x  12']);
  });

  it('never cuts a column below its header', () => {
    expect(fitWidths([10, 40], ['HEADER', 'H'], 20)).toEqual([9, 9]);
    expect(fitWidths([7, 7], ['LONGHDR', 'LONGHDR'], 5)).toEqual([7, 7]);
    expect(ellipsize('abcdef', 4)).toBe('abc…');
    expect(ellipsize('abc', 4)).toBe('abc');
  });
});
