import { basename, dirname, resolve } from 'node:path';

/**
 * Where the built workbench (apps/web: index.html and assets/) is. WEB_ROOT wins, resolved
 * against the working directory. Otherwise it is dist/apps/web of the same tree as this code:
 * beside the bundle (dist/apps/api/main.js, so ../web, as in the image's /app/dist) or, run from
 * source (apps/api/src, the integration tests), the repository's dist/apps/web.
 */
export function webRootOf(env: { WEB_ROOT?: string }, here: string = __dirname): string {
  if (env.WEB_ROOT) return resolve(env.WEB_ROOT);
  const bundled = basename(here) === 'api' && basename(dirname(here)) === 'apps' && basename(dirname(dirname(here))) === 'dist';
  return bundled ? resolve(here, '..', 'web') : resolve(here, '..', '..', '..', 'dist', 'apps', 'web');
}
