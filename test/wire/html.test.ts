import { describe, expect, it } from 'vitest';
import { html } from '../../src/http/wire/html.js';

describe('the html tagged template', () => {
  it('escapes every interpolated string, in text and in attribute values', () => {
    const hostile = `<img src=x onerror=alert(1)> & "quotes" 'single'`;
    const out = html`<p title="${hostile}">${hostile}</p>`.text;
    expect(out).toBe(
      '<p title="&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot; &#39;single&#39;">' +
        '&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot; &#39;single&#39;</p>',
    );
  });

  it('keeps html made by html as it is, joins arrays of it, and writes nothing for undefined', () => {
    const items = ['a<b', 'c&d'].map((text) => html`<li>${text}</li>`);
    expect(html`<ul>${items}</ul>${undefined}${null}${3}`.text).toBe('<ul><li>a&lt;b</li><li>c&amp;d</li></ul>3');
  });

  it('does not take a plain string that looks like markup for html', () => {
    const looksSafe = '<b>bold</b>';
    expect(html`${looksSafe}`.text).toBe('&lt;b&gt;bold&lt;/b&gt;');
  });
});
