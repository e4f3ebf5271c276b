import { realpathSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { routeForm } from './route-paths';

/** The workbench page's policy: its own scripts, styles and API only; images may also be data: URLs. No CDN, no inline script. */
export const WORKBENCH_CSP = "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'";

export const WORKBENCH_NOT_BUILT = 'the workbench is not built on this api: run `node tools/build.mjs web` (or point WEB_ROOT at a built apps/web) and reload';

const ASSETS_PREFIX = '/assets/';

/**
 * The single-page app's own routes, answered with its index.html (the page routes itself). In
 * the router's form (any case, one trailing slash), and nothing else: /v1, /docs, /admin/queues,
 * /metrics, /healthz and /readyz are never among them, so they keep their doors and their 404s.
 */
export function isWorkbenchPage(path: string): boolean {
  const p = routeForm(path);
  return p === '/' || p === '/new' || p === '/compare' || p === '/runs' || p.startsWith('/runs/') || p === '/ideas' || p.startsWith('/ideas/') || p === '/experiments' || p.startsWith('/experiments/') || p === '/evals' || p.startsWith('/evals/') || p === '/audit';
}

export function isWorkbenchAsset(path: string): boolean {
  const p = routeForm(path);
  return p === '/assets' || p.startsWith(ASSETS_PREFIX);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** A bundler's content-hashed name (index-BXk3d9aZ.js, main-7GQ2KD4P.css): 8+ name characters with a digit, before the extension. */
const HASHED = /[.-](?=[A-Za-z0-9_]*\d)[A-Za-z0-9_]{8,}\.[a-z0-9]+$/;

/** On every workbench reply: never sniffed into another type, never framed, no referrer to elsewhere. */
function setCommonHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', WORKBENCH_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/** `file`'s real path when it is a regular file whose real path (links followed) is inside `root`; else null. */
function fileInside(root: string, file: string): string | null {
  try {
    const realRoot = realpathSync(root);
    const real = realpathSync(file);
    if (!real.startsWith(realRoot + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/**
 * An asset's path below /assets/, decoded once, as a file below `<root>/assets`; null for any
 * spelling that could leave it (a `..` or `.` segment, an empty one, a dotfile, a NUL, a
 * backslash, a bad escape) or that names nothing there. Checked on the decoded text and again on
 * the resolved real path, so `%2e%2e`, `..%2f` and a symlink out of the root all end here.
 */
function assetFile(root: string, rawPath: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(rawPath.slice(ASSETS_PREFIX.length));
  } catch {
    return null;
  }
  if (rel === '' || rel.includes('\0') || rel.includes('\\')) return null;
  if (rel.split('/').some((seg) => seg === '' || seg.startsWith('.'))) return null;
  const dir = join(root, 'assets');
  const full = resolve(dir, rel);
  if (!full.startsWith(dir + sep)) return null;
  return fileInside(root, full);
}

/**
 * Serves the built workbench from `root` without a token: its files carry no run data (the
 * page asks for a token and sends it on every /v1 call). Mounted before the bearer door; it
 * answers GET and HEAD of the page routes (index.html, no-cache) and of /assets/* (hashed names
 * cached a year, others revalidated), and passes everything else on to the doors untouched.
 * Nothing outside `root` is ever served. With no index.html the page routes answer 503 saying how
 * to build it; the api itself runs on.
 */
export function workbenchHandler(root: string) {
  const fail = (res: Response, status: number, error: string, message: string) => {
    res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.send(JSON.stringify({ error, message }));
  };
  const send = (res: Response, file: string, cacheControl: string, onMissing: () => void) => {
    res.setHeader('Content-Type', TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream');
    res.setHeader('Cache-Control', cacheControl);
    res.sendFile(file, { cacheControl: false, dotfiles: 'allow' }, (err) => {
      if (err && !res.headersSent) onMissing();
    });
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (isWorkbenchPage(req.path)) {
      setCommonHeaders(res);
      const index = fileInside(root, join(root, 'index.html'));
      const notBuilt = () => fail(res, 503, 'workbench_not_built', WORKBENCH_NOT_BUILT);
      if (!index) return notBuilt();
      return send(res, index, 'no-cache', notBuilt);
    }
    if (isWorkbenchAsset(req.path)) {
      setCommonHeaders(res);
      const file = assetFile(root, req.path);
      const missing = () => fail(res, 404, 'asset_not_found', `the workbench has no asset ${req.path}`);
      if (!file) return missing();
      return send(res, file, HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache', missing);
    }
    next();
  };
}
