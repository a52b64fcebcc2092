import { bundlePathProblem, isStrictBase64 } from '../../src/modules/catalogs/capability-file-rules';

describe('capability file paths', () => {
  it.each([
    'README.md',
    'agents/scanner.md',
    '.github/workflows/ci.yml',
    'docs/100%25 done.md',
    'my%20file.txt',
    'données/été.txt',
    'a'.repeat(255),
    'console.log',
    'null.txt',
  ])('accepts %s', (path) => {
    expect(bundlePathProblem(path)).toBeNull();
  });

  it.each([
    ['traversal', '../etc/passwd', 'segment'],
    ['traversal in the middle', 'a/../../b', 'segment'],
    ['a dot segment', './a', 'segment'],
    ['a dots-only segment', 'a/.../b', 'segment'],
    ['a dots-and-spaces segment', 'a/.. /b', 'segment'],
    ['percent-encoded traversal', '%2e%2e/etc/passwd', 'percent-encode'],
    ['upper-case percent-encoded traversal', '%2E%2E%2Fetc', 'percent-encode'],
    ['double-encoded traversal', '%252e%252e/etc', 'percent-encode'],
    ['triple-encoded traversal', '%25252e%25252e/x', 'percent-encode'],
    ['an encoded slash', 'a%2Fb', 'percent-encode'],
    ['an encoded backslash', 'a%5cb', 'percent-encode'],
    ['an overlong UTF-8 dot', '%c0%ae%c0%ae/x', 'not UTF-8'],
    ['a lone continuation byte', 'a%80b', 'not UTF-8'],
    ['a leading slash', '/etc/passwd', "leading '/'"],
    ['an encoded leading slash', '%2fetc/passwd', 'percent-encode'],
    ['a drive letter', 'C:/Windows/system.ini', 'drive letter'],
    ['a drive-relative path', 'c:evil.txt', 'drive letter'],
    ['an encoded drive letter', 'C%3a/x', 'drive letter'],
    ['a backslash', 'a\\b', 'backslash'],
    ['a UNC path', '\\\\server\\share', 'backslash'],
    ['an empty path', '', 'empty'],
    ['an empty segment', 'a//b', 'empty segment'],
    ['a trailing slash', 'a/', 'empty segment'],
    ['NUL', 'a\u0000b', 'control, bidirectional or invisible'],
    ['an encoded NUL', 'a%00b', 'control, bidirectional or invisible'],
    ['a newline', 'a\nb', 'control, bidirectional or invisible'],
    ['an encoded newline', 'a%0Ab', 'control, bidirectional or invisible'],
    ['escape', 'a\u001b[31mred', 'control, bidirectional or invisible'],
    ['DEL', 'a\u007fb', 'control, bidirectional or invisible'],
    ['a C1 control', 'a\u0085b', 'control, bidirectional or invisible'],
    ['right-to-left override', 'invoice\u202Efdp.exe', 'control, bidirectional or invisible'],
    ['an encoded right-to-left override', 'invoice%E2%80%AEfdp.exe', 'control, bidirectional or invisible'],
    ['left-to-right embedding', 'a\u202Ab', 'control, bidirectional or invisible'],
    ['pop directional formatting', 'a\u202Cb', 'control, bidirectional or invisible'],
    ['a first-strong isolate', 'a\u2068b', 'control, bidirectional or invisible'],
    ['a pop directional isolate', 'a\u2069b', 'control, bidirectional or invisible'],
    ['a left-to-right mark', 'a\u200Eb', 'control, bidirectional or invisible'],
    ['a right-to-left mark', 'a\u200Fb', 'control, bidirectional or invisible'],
    ['a zero-width space', 'read\u200Bme.md', 'control, bidirectional or invisible'],
    ['a byte order mark', '\uFEFFREADME.md', 'control, bidirectional or invisible'],
    ['a line separator', 'a\u2028b', 'control, bidirectional or invisible'],
    ['a Windows device name', 'con', 'device name'],
    ['a Windows device name with an extension', 'tools/NUL.txt', 'device name'],
    ['a Windows device name with a trailing space (Windows drops it)', 'nul ', 'device name'],
    ['a Windows device name with a space before its extension', 'con .txt', 'device name'],
    ['a segment over 255 bytes', `${'é'.repeat(128)}.md`, '255 bytes'],
    ['a path over 1024 characters', 'a/'.repeat(512) + 'b', '1024'],
  ])('refuses %s', (_label, path, reason) => {
    expect(bundlePathProblem(path)).toContain(reason);
  });

  it('refuses what is not a string', () => {
    expect(bundlePathProblem(42)).toBe('must be a string');
  });
});

describe('strict base64', () => {
  it.each(['', 'QQ==', 'QUI=', 'QUJD', 'ab+/', Buffer.from('any bytes \u00ff').toString('base64')])('accepts %j', (value) => {
    expect(isStrictBase64(value)).toBe(true);
  });

  it.each(['Q', 'QQ=', 'QQ', 'Q===', '====', 'QQ==QUJD', 'QU I=', 'QUJ-', 'QUJ_', 'QUJ\u00e9', 'not base64!'])('refuses %j', (value) => {
    expect(isStrictBase64(value)).toBe(false);
  });

  it('checks 40 MiB in one pass, without overflowing the stack', () => {
    const large = 'QUJD'.repeat(10 * 1024 * 1024);
    expect(isStrictBase64(large)).toBe(true);
    expect(isStrictBase64(`${large.slice(0, -4)}QU!=`)).toBe(false);
  });
});
