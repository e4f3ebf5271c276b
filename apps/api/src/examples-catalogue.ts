import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';

import { pathUnderRoots, type ExampleProject } from '@roundtable/contracts';

export type { ExampleProject };

/**
 * The examples this api can offer (EXAMPLES_DIR, default ./examples): every directory holding a
 * project.yaml. Each replay cassette, written relative to the project file, is rewritten
 * relative to the operator's cassette root that holds it (the api resolves such a path against
 * cassettes.roots), so the text posts as is. An example whose cassette no root holds is left
 * out: it would be refused. Read once at start; comments and layout are kept (YAML documents).
 */
export function readExamples(dir: string, cassetteRoots: readonly string[]): ExampleProject[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'project.yaml')))
    .map((d) => exampleOf(path.join(dir, d.name), d.name, cassetteRoots))
    .filter((e): e is ExampleProject => e !== null)
    .sort((a, b) => a.name.localeCompare(b.name));
}

function exampleOf(exampleDir: string, name: string, roots: readonly string[]): ExampleProject | null {
  const doc = parseDocument(readFileSync(path.join(exampleDir, 'project.yaml'), 'utf8'));
  const providers = doc.get('providers');
  if (isMap(providers)) {
    for (const item of providers.items) {
      const pc = item.value;
      if (!isMap(pc) || pc.get('type') !== 'replay') continue;
      const cassette = pc.get('cassette', true);
      if (!isScalar(cassette) || typeof cassette.value !== 'string') continue;
      const relative = relativeToRoots(path.resolve(exampleDir, cassette.value), roots);
      if (relative === null) return null;
      cassette.value = relative;
    }
  }
  const objective = String(doc.get('objective') ?? '').trim();
  return { name, workflow: String(doc.get('workflow') ?? 'build'), summary: summaryOf(exampleDir) ?? objective, text: doc.toString() };
}

/** `file` relative to the first root that holds it, or null (missing, or under no root). */
function relativeToRoots(file: string, roots: readonly string[]): string | null {
  if (!existsSync(file)) return null;
  const root = roots.find((r) => pathUnderRoots(file, [r]));
  return root === undefined ? null : path.relative(root, file) || null;
}

function summaryOf(exampleDir: string): string | null {
  const readme = path.join(exampleDir, 'README.md');
  if (!existsSync(readme)) return null;
  const paragraph = readFileSync(readme, 'utf8').split(/\n\s*\n/).map((p) => p.trim()).find((p) => p && !p.startsWith('#'));
  return paragraph ? paragraph.replace(/\s+/g, ' ').slice(0, 300) : null;
}
