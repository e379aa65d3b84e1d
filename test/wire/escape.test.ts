import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/http/wire/escape.js';
import { jsonString } from '../../src/http/wire/json.js';

describe('escapeHtml', () => {
  it('escapes each of the five characters', () => {
    expect(escapeHtml('&')).toBe('&amp;');
    expect(escapeHtml('<')).toBe('&lt;');
    expect(escapeHtml('>')).toBe('&gt;');
    expect(escapeHtml("'")).toBe('&#39;');
    expect(escapeHtml('"')).toBe('&quot;');
  });

  it('escapes every occurrence within text', () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;',
    );
  });

  it('escapes text that already looks escaped exactly once more, never twice', () => {
    expect(escapeHtml('&lt;')).toBe('&amp;lt;');
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });

  it('leaves every other character alone', () => {
    const others = 'plain / ` = ; # % \\ \n \t \u0000 ~ ! ? {} [] ()';
    expect(escapeHtml(others)).toBe(others);
    expect(escapeHtml('')).toBe('');
  });

  it('leaves emoji, CJK and combining marks as they are', () => {
    const text = '👩‍👩‍👧 任务清单 café Zoë e\u0301 한국어 🇩🇪';
    expect(escapeHtml(text)).toBe(text);
    expect(escapeHtml(`${text} & ${text}`)).toBe(`${text} &amp; ${text}`);
  });
});

describe('jsonString', () => {
  it('is a JSON literal of the escaped text', () => {
    expect(jsonString('say "hi" & <go>')).toBe('"say &quot;hi&quot; &amp; &lt;go&gt;"');
    expect(JSON.parse(jsonString('a\nb\\c'))).toBe('a\nb\\c');
  });

  it('writes non-ASCII characters as themselves, not \\u escapes', () => {
    expect(jsonString('任务 🎉 e\u0301')).toBe('"任务 🎉 e\u0301"');
  });

  it('writes a lone surrogate as a \\u escape, since UTF-8 cannot carry it', () => {
    expect(jsonString('a\ud800b')).toBe('"a\\ud800b"');
  });
});

describe('jsonString on characters JSON itself escapes', () => {
  it('round-trips quotes, backslashes, controls and surrogate pairs', () => {
    for (const text of ['"', '\\', '\u0000\u0001\u001f', 'tab\there', '😀', 'a😀b"c', '\u007f\u2028\u2029']) {
      expect(JSON.parse(jsonString(text))).toBe(text.replaceAll('"', '&quot;'));
    }
  });
});
