import { describe, expect, it } from 'vitest';
import { normaliseRemoteUrl } from '../../src/core/repo-url.js';

describe('a remote URL made equal however it is spelled', () => {
  it.each([
    'git@github.com:acme/api.git',
    'git@github.com:Acme/API',
    'https://github.com/acme/api',
    'https://github.com/acme/api.git/',
    'https://user:token@github.com/acme/api.git',
    'http://github.com/acme/api',
    'ssh://git@github.com/acme/api.git',
    'ssh://git@github.com:22/acme/api.git',
    'git+ssh://git@github.com/acme/api',
    'git://github.com/acme/api',
    '  https://GitHub.com//acme/./api.git  ',
  ])('%s is github.com/acme/api', (url) => {
    expect(normaliseRemoteUrl(url)).toBe('github.com/acme/api');
  });

  it('keeps what tells repositories apart: host and whole path', () => {
    expect(normaliseRemoteUrl('git@gitlab.example.com:group/sub/api.git')).toBe(
      'gitlab.example.com/group/sub/api',
    );
    expect(normaliseRemoteUrl('https://gitlab.example.com:8443/group/sub/api')).toBe(
      'gitlab.example.com/group/sub/api',
    );
    expect(normaliseRemoteUrl('git@github.com:acme/api')).not.toBe(
      normaliseRemoteUrl('git@github.com:acme/web'),
    );
    expect(normaliseRemoteUrl('git@github.com:acme/api')).not.toBe(
      normaliseRemoteUrl('git@gitlab.com:acme/api'),
    );
    expect(normaliseRemoteUrl('ssh://[::1]:2222/srv/api.git')).toBe('[::1]/srv/api');
  });

  it.each([
    '/srv/git/api.git',
    '../api',
    './api',
    'file:///srv/git/api.git',
    'C:\\repos\\api',
    'c:/repos/api',
    '',
    'https://github.com/',
    'x'.repeat(3000),
  ])('%s names no remote repository (a folder on this machine, or nothing)', (url) => {
    expect(normaliseRemoteUrl(url)).toBeNull();
  });
});
