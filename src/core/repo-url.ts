/**
 * A remote's URL made equal however it is spelled, so that every clone of one repository names it
 * alike: `git@github.com:Acme/API.git`, `https://user:token@github.com/acme/api`,
 * `ssh://git@github.com:22/acme/api.git/` and `git://github.com/acme/api` are all
 * `github.com/acme/api`. Scheme, user, password and port are dropped, the `.git` suffix and
 * trailing slashes too, and the whole is lower-cased (the hosts people use compare paths without
 * case).
 *
 * A URL that names a folder on this machine (`/srv/api.git`, `../api`, `file:///srv/api`) has no
 * such name: `null`, and the caller follows it to the repository it names.
 */
export function normaliseRemoteUrl(url: string): string | null {
  const raw = url.trim();
  if (raw === '' || raw.length > 2048) return null;
  let host: string;
  let path: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw);
  if (scheme) {
    const kind = scheme[1]!.toLowerCase();
    if (kind === 'file') return null;
    const rest = raw.slice(scheme[0].length);
    const slash = rest.indexOf('/');
    const authority = slash === -1 ? rest : rest.slice(0, slash);
    path = slash === -1 ? '' : rest.slice(slash);
    host = authority.slice(authority.lastIndexOf('@') + 1);
    // A port, but not an IPv6 address's colons.
    host = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  } else {
    // scp-like `[user@]host:path`: a colon before any slash (git's own rule); else a local path.
    const colon = raw.indexOf(':');
    const slash = raw.indexOf('/');
    if (colon <= 0 || (slash !== -1 && slash < colon) || /^[a-z]:[\\/]/i.test(raw)) return null;
    host = raw.slice(0, colon);
    host = host.slice(host.lastIndexOf('@') + 1);
    path = raw.slice(colon + 1);
  }
  if (host === '') return null;
  const cleanPath = path
    .replace(/\\/g, '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/')
    .replace(/\.git$/i, '');
  if (cleanPath === '') return null;
  return `${host}/${cleanPath}`.toLowerCase();
}
