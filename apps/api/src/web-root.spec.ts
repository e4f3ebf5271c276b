import { resolve } from 'node:path';
import { webRootOf } from './web-root';

describe('webRootOf', () => {
  it('is WEB_ROOT when set, resolved against the working directory', () => {
    expect(webRootOf({ WEB_ROOT: '/srv/web' })).toBe('/srv/web');
    expect(webRootOf({ WEB_ROOT: 'build/web' })).toBe(resolve(process.cwd(), 'build/web'));
  });

  it("is dist/apps/web beside the api's bundle (the image's /app/dist/apps/api)", () => {
    expect(webRootOf({}, '/app/dist/apps/api')).toBe('/app/dist/apps/web');
  });

  it("is the repository's dist/apps/web when run from source", () => {
    expect(webRootOf({}, '/repo/apps/api/src')).toBe('/repo/dist/apps/web');
    expect(webRootOf({})).toBe(resolve(__dirname, '../../../dist/apps/web'));
  });
});
