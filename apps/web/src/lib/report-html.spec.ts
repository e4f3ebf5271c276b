import { reportHtml } from './report-html';

// marked ships ES modules (the browser bundle's form) and a UMD build; jest runs CommonJS, so it gets the UMD one.
jest.mock('marked', () => jest.requireActual('../../../../node_modules/marked/lib/marked.umd.js'));

describe('reportHtml', () => {
  it('renders markdown: headings, tables, code', () => {
    const html = reportHtml('# Run r1\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n`x < y`');
    expect(html).toContain('<h3>Run r1</h3>');
    expect(html).toContain('<table>');
    expect(html).toContain('<code>x &lt; y</code>');
  });

  it('keeps line breaks and moves headings under the section heading', () => {
    expect(reportHtml('Verdict: ACCEPT\nStatus: done')).toContain('Verdict: ACCEPT<br>Status: done');
    expect(reportHtml('## Review')).toContain('<h4>Review</h4>');
  });

  it('shows raw HTML blocks and inline tags as text', () => {
    const html = reportHtml('<script>alert(1)</script>\n\nhello <img src=x onerror=alert(1)> <b>bold</b>');
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('drops unsafe link schemes but keeps the text, and keeps http links', () => {
    const html = reportHtml('[click](javascript:alert(1)) [docs](https://example.com/a "t")');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('click');
    expect(html).toContain('<a href="https://example.com/a" title="t" rel="noopener noreferrer">docs</a>');
  });

  it('turns images into links, so the page loads nothing', () => {
    expect(reportHtml('![chart](https://example.com/c.png)')).not.toContain('<img');
  });
});
