import { escapeLiteral } from 'pg';
import { quoteLiteral, stringConstant } from './statement-batch';

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

describe('stringConstant', () => {
  it('dollar-quotes a text as it is', () => {
    expect(stringConstant('')).toBe('$rt$$rt$');
    expect(stringConstant("it's a \\ and $1 $$ $tag$ $r $rtx$ ending in $")).toBe("$rt$it's a \\ and $1 $$ $tag$ $r $rtx$ ending in $$rt$");
  });

  it("falls back to quoteLiteral's form for a text the closing tag would end early", () => {
    for (const s of ['holds $rt$ the tag', 'ends with $rt', '$rt$']) expect(stringConstant(s)).toBe(escapeLiteral(s));
  });
});
