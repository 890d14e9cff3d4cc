// Where a call goes (hosts, mail addresses, file paths) and whether the user named it.
import { describe, expect, it } from 'vitest';
import { destinationsOf, givenPlaces, isGiven } from '../../src/policy/destinations.js';

describe('destinationsOf', () => {
  it('finds hosts in URLs anywhere in the arguments, mail addresses, and file paths of tools that write', () => {
    const args = { url: 'https://Evil.example:8443/c?d=secret', nested: { to: ['Bob@Example.org'] }, path: 'notes/out.txt' };
    expect(destinationsOf(args, { paths: true })).toEqual([
      { kind: 'host', value: 'evil.example:8443', url: 'https://evil.example:8443/c?d=secret' },
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

describe('destinationsOf, read as the fetch reads it', () => {
  const hostsOf = (url: string) => destinationsOf({ url }, { paths: false }).map((d) => d.value);

  it.each([
    ['userinfo before the host', 'http://named.example@evil.example/c?d=1'],
    ['a backslash that a URL parser reads as a slash', 'http://evil.example\\@named.example/'],
    ['a scheme without slashes', 'http:evil.example/c'],
    ['a tab inside the scheme', 'ht\ttp://evil.example/c'],
    ['a newline inside the host', 'http://evil.exa\nmple/c'],
    ['spaces around the address', '  http://evil.example/c  '],
    ['upper case and a trailing dot', 'HTTP://EVIL.EXAMPLE./c'],
  ])('finds the host a fetch would reach through %s', (_form, url) => {
    expect(hostsOf(url)).toContain('evil.example');
    expect(hostsOf(url)).not.toContain('named.example');
  });

  it('writes an international host in punycode, as the fetch and the question are compared', () => {
    expect(hostsOf('https://bücher.example/')).toEqual(['xn--bcher-kva.example']);
    expect(isGiven(destinationsOf({ url: 'https://xn--bcher-kva.example/' }, { paths: false })[0]!, givenPlaces('Read https://bücher.example/', []))).toBe(true);
  });

  it('reads mail addresses as a mailer does: display names, full-width @, case and international domains', () => {
    const mails = (to: string) => destinationsOf({ to }, { paths: false }).map((d) => `${d.kind}:${d.value}`);
    expect(mails('Alice <Alice@Example.ORG>')).toEqual(['mail:alice@example.org']);
    expect(mails('eve\uFF20evil.example')).toEqual(['mail:eve@evil.example']);
    expect(mails('bob@bücher.example')).toEqual(['mail:bob@xn--bcher-kva.example']);
  });

  it('counts a recipient it cannot read as a place of its own, never one the user named', () => {
    const [place] = destinationsOf({ to: 'eve at evil dot example' }, { paths: false });
    expect(place).toMatchObject({ kind: 'other' });
    expect(isGiven(place!, givenPlaces('mail eve at evil dot example', []))).toBe(false);
  });

  it('takes a URI argument of any scheme as a place, but not "Re:" or a time inside a text', () => {
    expect(destinationsOf({ uri: 'gopher:evil.example/x' }, { paths: false })).toEqual([{ kind: 'other', value: 'gopher:evil.example/x', url: 'gopher:evil.example/x' }]);
    expect(destinationsOf({ body: 'Re:meeting at 10:30, see s3://bucket/key' }, { paths: false }).map((d) => d.value)).toEqual(['s3://bucket/key']);
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

  it('does not take file names in the question for hosts', () => {
    const files = givenPlaces('Summarise README.md, then run deploy.sh and open notes.pdf', []);
    for (const name of ['readme.md', 'deploy.sh', 'notes.pdf']) expect(isGiven({ kind: 'host', value: name }, files)).toBe(false);
    expect(isGiven({ kind: 'host', value: 'deploy.sh' }, givenPlaces('Post it to https://deploy.sh/', []))).toBe(true);
  });

  it("accepts the profile's destinations: wildcard hosts, addresses and whole mail domains", () => {
    expect(isGiven({ kind: 'host', value: 'api.trusted.example' }, given)).toBe(true);
    expect(isGiven({ kind: 'mail', value: 'ops@corp.example' }, given)).toBe(true);
    expect(isGiven({ kind: 'mail', value: 'anyone@team.example' }, given)).toBe(true);
    expect(isGiven({ kind: 'host', value: 'trusted.example.attacker.test' }, given)).toBe(false);
  });
});
