import { describe, expect, it } from 'vitest';
import { describeTeamDatabaseFault, redactUrl } from '../../src/core/team-database-faults.js';

const URL_ = 'postgres://collab:s3cret@db.internal:6543/collab';

/** The faults the machine's PostgreSQL (trust auth, ample connections) cannot produce, as pg reports them. */
describe('a team database fault in one line, with the fix', () => {
  it.each([
    [
      { code: '28P01', message: 'password authentication failed for user "collab"' },
      /refused the password of role "collab"/,
      /ALTER ROLE/,
    ],
    [
      { code: '28000', message: 'no pg_hba.conf entry for host "10.0.0.5"' },
      /does not let role "collab" connect/,
      /pg_hba\.conf/,
    ],
    [
      { code: '42501', message: 'permission denied for table meta' },
      /lacks a right it needs.*permission denied for table meta/,
      /OWNER TO "collab"/,
    ],
    [
      { code: '53300', message: 'sorry, too many clients already' },
      /no connection left/,
      /database_pool_size/,
    ],
    [
      { code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND db.internal' },
      /host "db.internal" .* is not known/,
      /Correct the host/,
    ],
    [{ code: 'ETIMEDOUT', message: 'connect ETIMEDOUT' }, /does not answer/, /firewall/],
    [
      new AggregateError([
        Object.assign(new Error('connect ECONNREFUSED ::1:6543'), { code: 'ECONNREFUSED' }),
      ]),
      /Nothing accepts connections at db\.internal:6543/,
      /pg_isready -h db\.internal -p 6543/,
    ],
    [new Error('timeout expired'), /did not answer in time/, /reach it/],
  ])('%o', (error, message, hint) => {
    const fault = describeTeamDatabaseFault(error, URL_)!;
    expect(fault.code).toBe('DB_ERROR');
    expect(fault.message).toMatch(message);
    expect(fault.hint).toMatch(hint);
    expect(`${fault.message} ${fault.hint}`).not.toContain('s3cret');
  });

  it('anything else is not a setup fault', () => {
    expect(describeTeamDatabaseFault(new Error('syntax error at or near "x"'), URL_)).toBeNull();
    expect(describeTeamDatabaseFault({ code: '23505' }, URL_)).toBeNull();
  });

  it('hides the password', () => {
    expect(redactUrl(URL_)).toBe('postgres://collab:***@db.internal:6543/collab');
  });
});
