// Where a call goes (hosts, mail addresses, file paths) and whether the user named it.
import { describe, expect, it } from 'vitest';
import { destinationsOf, givenPlaces, isGiven } from '../../src/policy/destinations.js';

describe('destinationsOf', () => {
  it('finds hosts in URLs anywhere in the arguments, mail addresses, and file paths of tools that write', () => {
    const args = { url: 'https://Evil.example:8443/c?d=secret', nested: { to: ['Bob@Example.org'] }, path: 'notes/out.txt' };
    expect(destinationsOf(args, { paths: true })).toEqual([
      { kind: 'host', value: 'evil.example:8443' },
      { kind: 'mail', value: 'bob@example.org' },
      { kind: 'path', value: 'notes/out.txt' },
    ]);
    expect(destinationsOf(args, { paths: false }).map((d) => d.kind)).toEqual(['host', 'mail']);
  });

  it('takes any argument named like a path (image_path, output_file) as a place a write reaches', () => {
    expect(destinationsOf({ image_path: '/home/me/photo.jpg', output_file: 'x.txt', text: 'not/a/path' }, { paths: true })).toEqual([
      { kind: 'path', value: '/home/me/photo.jpg' },
      { kind: 'path', value: 'x.txt' },
    ]);
  });

  it('reads a bounded number of strings, so a huge argument costs the host nothing', () => {
    const args = { list: Array.from({ length: 5_000 }, (_, i) => `https://h${i}.example/`) };
    expect(destinationsOf(args, { paths: false }).length).toBeLessThanOrEqual(1_000);
  });
});

describe('isGiven', () => {
  const given = givenPlaces('Read http://127.0.0.1:4321/news, mail it to alice@example.org and save it to "headline.txt"; see also docs.example.com', ['*.trusted.example', 'ops@corp.example', '@team.example']);

  it('accepts the places the question names: a URL host with its port, a mail address, a file name, a bare host', () => {
    expect(isGiven({ kind: 'host', value: '127.0.0.1:4321' }, given)).toBe(true);
    expect(isGiven({ kind: 'mail', value: 'alice@example.org' }, given)).toBe(true);
    expect(isGiven({ kind: 'path', value: 'out/headline.txt' }, given)).toBe(true);
    expect(isGiven({ kind: 'host', value: 'docs.example.com' }, given)).toBe(true);
  });

  it('refuses other ports, other hosts, other addresses and other files', () => {
    expect(isGiven({ kind: 'host', value: '127.0.0.1:8765' }, given)).toBe(false);
    expect(isGiven({ kind: 'host', value: 'attacker.test' }, given)).toBe(false);
    expect(isGiven({ kind: 'mail', value: 'drop@attacker.test' }, given)).toBe(false);
    expect(isGiven({ kind: 'path', value: 'run-me.sh' }, given)).toBe(false);
  });

  it("accepts the profile's destinations: wildcard hosts, addresses and whole mail domains", () => {
    expect(isGiven({ kind: 'host', value: 'api.trusted.example' }, given)).toBe(true);
    expect(isGiven({ kind: 'mail', value: 'ops@corp.example' }, given)).toBe(true);
    expect(isGiven({ kind: 'mail', value: 'anyone@team.example' }, given)).toBe(true);
    expect(isGiven({ kind: 'host', value: 'trusted.example.attacker.test' }, given)).toBe(false);
  });
});
