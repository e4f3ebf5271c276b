import { escapeLiteral } from 'pg';
import { quoteLiteral } from './statement-batch';

describe('quoteLiteral', () => {
  it('answers the very text node-postgres escapeLiteral answers', () => {
    const samples = [
      '',
      'plain',
      "it's",
      "''",
      '\\',
      'a\\b',
      "a\\'b",
      "\\'\\\\''",
      '{"content":"say \\"hi\\"\\n it\'s <evidence>"}',
      'ünïcödé — 〈/evidence〉 \u200B',
      '\0x',
      JSON.stringify({ messages: [{ role: 'user', content: "line 1\nline 2 \\ it's 'quoted' \"twice\"".repeat(200) }] }),
    ];
    for (const s of samples) expect(quoteLiteral(s)).toBe(escapeLiteral(s));
  });
});
