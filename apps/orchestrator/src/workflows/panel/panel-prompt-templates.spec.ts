import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JUDGES } from '@roundtable/contracts';
import { loadPanelPromptTemplates } from './panel-prompt-templates';

const PROMPTS = path.resolve(__dirname, '../../../../../prompts');

describe('loadPanelPromptTemplates (checked at boot)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-panel-prompts-'));
    cpSync(PROMPTS, dir, { recursive: true });
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the preamble and every panel template from the repository', () => {
    const t = loadPanelPromptTemplates(dir);
    expect(Object.keys(t).sort()).toEqual(['preamble', ...JUDGES, 'debate', 'revote', 'moderator', 'appeal'].sort());
    expect(t.debate).toContain('{{transcript}}');
  });

  it('refuses to start with a placeholder the pack never fills, naming the template and the placeholder', () => {
    writeFileSync(path.join(dir, 'panel', 'revote.md'), 'Re-score {{idea}} against {{the_whole_internet}}.');
    expect(() => loadPanelPromptTemplates(dir)).toThrow('prompt panel/revote uses {{the_whole_internet}}, which the revote pack does not provide');
  });

  it('refuses to start when a template is missing', () => {
    unlinkSync(path.join(dir, 'panel', 'competitor.md'));
    expect(() => loadPanelPromptTemplates(dir)).toThrow('prompt panel/competitor is missing or empty');
  });
});
