import { describe, expect, it } from 'vitest';
import { html, raw } from '../../src/http/dashboard/html.js';

describe('html', () => {
  it('escapes every interpolation unless it is already html', () => {
    const name = `<img src=x onerror="alert('x')">&`;
    expect(String(html`<b title="${name}">${name}</b>${raw('<br>')}`)).toBe(
      '<b title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</b><br>',
    );
    expect(String(html`${[1, html`<i>${'<'}</i>`, null, false, undefined]}`)).toBe('1<i>&lt;</i>');
    expect(String(html`${'"\'<>&'}`)).toBe('&quot;&#39;&lt;&gt;&amp;');
  });

  it('refuses a promise rather than render it late', () => {
    expect(() => html`${Promise.resolve('x')}`).toThrow(/promise/);
  });
});
