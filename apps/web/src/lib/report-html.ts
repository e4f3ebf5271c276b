import { Marked, type Tokens } from 'marked';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** Links the report may carry: the web and in-page anchors; never javascript:, data: and the like. */
const SAFE_HREF = /^(https?:|mailto:|#|\/(?!\/))/i;

/**
 * The run report (markdown from GET /v1/runs/:id/report) as HTML that is safe to set as
 * innerHTML: model-written text is in the report, so every raw HTML token marked finds (a block
 * or an inline tag) is shown escaped, as text, and links keep only safe schemes. Images become
 * links: the page loads nothing the report names. Headings move down two levels (# is an h3), as the
 * report sits in the page's Report section (its h2). A line break in the markdown is one on the page:
 * the report writes label lines one under another.
 */
const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    heading(token: Tokens.Heading) {
      const level = Math.min(6, token.depth + 2);
      return `<h${level}>${this.parser.parseInline(token.tokens)}</h${level}>\n`;
    },
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      if (!SAFE_HREF.test(token.href.trim())) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(token.href)}"${title} rel="noopener noreferrer">${text}</a>`;
    },
    image(token: Tokens.Image) {
      const alt = escapeHtml(token.text || token.href);
      return SAFE_HREF.test(token.href.trim()) ? `<a href="${escapeHtml(token.href)}" rel="noopener noreferrer">${alt}</a>` : alt;
    },
  },
});

export function reportHtml(markdown: string): string {
  return marked.parse(markdown) as string;
}
