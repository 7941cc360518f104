import { describe, expect, it } from 'vitest';
import { escapeHtml, html, raw } from '../../src/http/dashboard/html.js';

describe('html', () => {
  it('escapes every interpolation unless it is already html', () => {
    const name = `<img src=x onerror="alert('x')">&`;
    expect(html`<b title="${name}">${name}</b>${raw('<br>')}`.value).toBe(
      '<b title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</b><br>',
    );
    expect(html`${[1, html`<i>${'<'}</i>`, null, false, undefined]}`.value).toBe('1<i>&lt;</i>');
    expect(escapeHtml('"\'<>&')).toBe('&quot;&#39;&lt;&gt;&amp;');
  });
});
