import { type HTMLAttributes, useLayoutEffect, useRef } from 'react';

/**
 * A <pre> that a keyboard can scroll: while its text overflows the box (pre.code and pre.diff
 * have a max-height and scroll sideways), it is in the tab order (tabindex 0), so arrow keys
 * and Page Down move it (WCAG 2.1.1; axe's scrollable-region-focusable). A <pre> that fits
 * stays out of the tab order: no stops that do nothing.
 */
export function ScrollPre(props: HTMLAttributes<HTMLPreElement>) {
  const ref = useRef<HTMLPreElement>(null);
  // After every render (the text may have changed) and on every resize (a phone turned, a column narrowed).
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => {
      const scrolls = el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1;
      if (scrolls) el.tabIndex = 0;
      else el.removeAttribute('tabindex');
    };
    update();
    if (typeof ResizeObserver === 'undefined') return;
    const watch = new ResizeObserver(update);
    watch.observe(el);
    return () => watch.disconnect();
  });
  return <pre ref={ref} {...props} />;
}
