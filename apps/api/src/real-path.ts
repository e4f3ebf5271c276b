import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** The kernel's own limit on symlinks followed in one lookup (ELOOP past it). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Where a path really leads, symlinks resolved, whether or not it exists. The policy's roots are
 * judged on this, before anything is said about existence, so a path outside them gets the same
 * answer whether it is there or not (no existence oracle for /etc/shadow).
 *
 * An existing path is fs.realpath's answer. Otherwise the path is walked a component at a time
 * as the kernel would: each existing component is resolved (a dangling symlink is followed to
 * where it points), and from the first missing component on the rest is lexical. So a missing
 * file behind a symlink is judged where the symlink leads, not where it sits. null: a symlink
 * loop, which no root holds.
 */
export async function realPathOf(p: string): Promise<string | null> {
  try {
    return await realpath(p);
  } catch {
    return walk(p, 0);
  }
}

async function walk(p: string, hops: number): Promise<string | null> {
  const parts = p.split('/').filter(Boolean);
  let cur = '/';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part === '.') continue;
    if (part === '..') {
      // `cur` is already a real directory, so its parent is its lexical parent.
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, part);
    let isLink: boolean;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch {
      // Missing (or unreadable): nothing more to resolve, the rest is as written.
      return path.join(next, ...parts.slice(i + 1));
    }
    if (!isLink) {
      cur = next;
      continue;
    }
    if (hops >= MAX_SYMLINK_HOPS) return null;
    let target: string;
    try {
      target = await readlink(next);
    } catch {
      return null;
    }
    // Not path.resolve: a `..` in the target is walked from where it really is, not folded lexically.
    const resolved = await walk(target.startsWith('/') ? target : `${cur}/${target}`, hops + 1);
    if (resolved === null) return null;
    cur = resolved;
  }
  return cur;
}
