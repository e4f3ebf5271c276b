import { execFileSync } from 'child_process';
import * as path from 'path';

/**
 * The lint rule of eslint.config.mjs that keeps workflow names in the registries (issue #28):
 * planted violations fail it, the registries and tests may name workflows, and a 'build' that
 * is no workflow's name passes. Linted through ESLint's Node API with the real config, in a
 * child process (lint-texts.cjs says why).
 */

interface LintMessage {
  ruleId: string | null;
  message: string;
}

const PLANTED = "if (run.workflow === 'panel') { void 0; }";

const violations: [text: string, filePath: string, registry: string][] = [
  [PLANTED, 'apps/api/src/planted.ts', 'apps/api/src/workflows/api-workflows.ts'],
  ["if ('build' !== view?.workflow) { void 0; }", 'apps/web/src/components/planted.tsx', 'apps/web/src/workflows/index.tsx'],
  ["export const shown = (view: { workflow: string }) => <p>{view.workflow == 'panel' && 'a panel'}</p>;", 'apps/web/src/components/planted.tsx', 'apps/web/src/workflows/index.tsx'],
  ["export function f(p: { workflow: string }) { switch (p.workflow) { case 'build': return 1; } return 0; }", 'apps/cli/src/planted.ts', 'apps/cli/src/workflows.ts'],
  ["if (workflow != 'panel') { void 0; }", 'libs/run-view/src/planted.ts', 'libs/run-view/src/workflow-views.ts'],
  ["if (run.workflow !== 'build') { void 0; }", 'apps/orchestrator/src/planted.ts', 'apps/orchestrator/src/workflows/workflow-registry.ts'],
];

const allowedPaths = [
  'apps/api/src/workflows/api-workflows.ts',
  'apps/api/src/workflows/panel.ts',
  'apps/web/src/workflows/index.tsx',
  'apps/cli/src/workflows.ts',
  'libs/run-view/src/workflow-views.ts',
  'apps/orchestrator/src/workflows/workflow-registry.ts',
  'apps/api/src/planted.spec.ts',
  'libs/workflow/src/planted.ts',
];

const otherBuilds = [
  "if (script === 'build') { void 0; }",
  "if (command.name === 'build') { void 0; }",
  "export function f(stage: string) { switch (stage) { case 'build': return 1; } return 0; }",
  "export const created = { workflow: 'build' };",
];

const cases = [
  ...violations.map(([text, filePath]) => ({ text, filePath })),
  ...allowedPaths.map((filePath) => ({ text: PLANTED, filePath })),
  ...otherBuilds.map((text) => ({ text, filePath: 'apps/api/src/planted.ts' })),
];
const key = (text: string, filePath: string) => `${filePath}\n${text}`;

let messages: Map<string, LintMessage[]>;

beforeAll(() => {
  const out = execFileSync(process.execPath, [path.join(__dirname, 'lint-texts.cjs')], { input: JSON.stringify(cases), encoding: 'utf8' });
  const results = JSON.parse(out) as LintMessage[][];
  messages = new Map(cases.map((c, i) => [key(c.text, c.filePath), results[i]]));
}, 60_000);

/** The no-restricted-syntax messages of `text` linted as the file at `filePath`. */
const restricted = (text: string, filePath: string) => messages.get(key(text, filePath))!.filter((m) => m.ruleId === 'no-restricted-syntax');

describe('the lint rule: outside the registries nothing branches on a workflow name', () => {
  it.each(violations)('flags %s in %s, naming the registry to dispatch through', (text, filePath, registry) => {
    const found = restricted(text, filePath);
    expect(found).toHaveLength(1);
    expect(found[0].message).toContain(`dispatch through the workflow registry: ${registry}`);
  });

  it.each(allowedPaths)('lets a registry, a test or a library outside the apps name workflows: %s', (filePath) => {
    expect(restricted(PLANTED, filePath)).toEqual([]);
  });

  it.each(otherBuilds)("leaves a 'build' that is no workflow's name alone: %s", (text) => {
    expect(restricted(text, 'apps/api/src/planted.ts')).toEqual([]);
  });
});
