import { dirname, join } from 'node:path';
import type { NextFunction, Request, Response } from 'express';

export const DOCS_PATH = '/docs';

/** The files of swagger-ui-dist the page loads: served from node_modules, so /docs works offline. */
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png']);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Roundtable API</title>
  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/swagger-ui-standalone-preset.js"></script>
  <script src="${DOCS_PATH}/swagger-initializer.js"></script>
</body>
</html>
`;

// persistAuthorization: the token typed into "Authorize" survives a reload of the page.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: '${DOCS_PATH}/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  persistAuthorization: true,
});
`;

/**
 * /docs (Swagger UI), /docs/openapi.json (the document) and the UI's assets. Mounted at DOCS_PATH,
 * behind the same door as every other route.
 */
export function docsHandler(document: unknown) {
  const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
  const body = JSON.stringify(document);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    if (path === '/' || path === '') {
      res.type('html').send(PAGE);
    } else if (path === '/openapi.json') {
      res.type('json').send(body);
    } else if (path === '/swagger-initializer.js') {
      res.type('js').send(INITIALIZER);
    } else if (ASSETS.has(path.slice(1))) {
      res.sendFile(join(dist, path.slice(1)), { maxAge: '1d' });
    } else {
      next();
    }
  };
}
