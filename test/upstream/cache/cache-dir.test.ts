import { describe, expect, it } from 'vitest';
import { defaultCacheDir, resolveCacheDir } from '../../../src/upstream/cache/cache-dir.js';

describe('the default cache directory', () => {
  it('follows XDG_CACHE_HOME when it is absolute, on every platform', () => {
    expect(defaultCacheDir('linux', { XDG_CACHE_HOME: '/x/cache' }, '/home/u')).toBe('/x/cache/org-analytics-mcp');
    expect(defaultCacheDir('darwin', { XDG_CACHE_HOME: '/x/cache' }, '/Users/u')).toBe('/x/cache/org-analytics-mcp');
  });

  it('is the platform user cache otherwise', () => {
    expect(defaultCacheDir('linux', { XDG_CACHE_HOME: 'relative' }, '/home/u')).toBe(
      '/home/u/.cache/org-analytics-mcp',
    );
    expect(defaultCacheDir('darwin', {}, '/Users/u')).toBe('/Users/u/Library/Caches/org-analytics-mcp');
    expect(defaultCacheDir('win32', { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'C:\\Users\\u')).toBe(
      'C:\\Users\\u\\AppData\\Local\\org-analytics-mcp\\Cache',
    );
  });

  it('is turned off by none, and a given directory is made absolute', () => {
    expect(resolveCacheDir('none')).toBeUndefined();
    expect(resolveCacheDir('NONE')).toBeUndefined();
    expect(resolveCacheDir('/tmp/c')).toBe('/tmp/c');
    expect(resolveCacheDir(undefined, 'linux', { XDG_CACHE_HOME: '/x' })).toBe('/x/org-analytics-mcp');
  });
});
