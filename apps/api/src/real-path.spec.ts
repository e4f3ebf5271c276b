import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realPathOf } from './real-path';

describe('realPathOf: where a path really leads, existing or not', () => {
  let dir: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'rt-realpath-')));
    mkdirSync(join(dir, 'real'));
    symlinkSync('/etc', join(dir, 'to-etc'));
    symlinkSync('real', join(dir, 'relative'));
    symlinkSync('/etc/rt-no-such-target', join(dir, 'dangling'));
    symlinkSync('../rt-nowhere/x', join(dir, 'real', 'dangling-up'));
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is fs.realpath for a path that exists', async () => {
    expect(await realPathOf(join(dir, 'relative'))).toBe(join(dir, 'real'));
    expect(await realPathOf(join(dir, 'to-etc'))).toBe('/etc');
  });

  it('resolves the existing part of a missing path and keeps the rest as written', async () => {
    expect(await realPathOf(join(dir, 'real', 'no', 'such'))).toBe(join(dir, 'real', 'no', 'such'));
    expect(await realPathOf(join(dir, 'to-etc', 'rt-missing'))).toBe('/etc/rt-missing');
    expect(await realPathOf(`${dir}/real/missing/../../../rt-x`)).toBe(join(dir, '..', 'rt-x'));
  });

  it('follows a dangling symlink to where it points', async () => {
    expect(await realPathOf(join(dir, 'dangling'))).toBe('/etc/rt-no-such-target');
    expect(await realPathOf(join(dir, 'real', 'dangling-up'))).toBe(join(dir, 'rt-nowhere', 'x'));
  });

  it('gives null for a symlink loop', async () => {
    expect(await realPathOf(join(dir, 'loop-a'))).toBeNull();
  });
});
