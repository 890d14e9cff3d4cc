import { describe, expect, it } from 'vitest';
import { offeredNames } from '../../src/mcp/offered-names.js';

const t = (server: string, remoteName: string) => ({ server, remoteName });

describe('offeredNames', () => {
  it("keeps a server's own name when no other server offers it", () => {
    expect(offeredNames([t('math', 'add'), t('docs', 'search')])).toEqual(['add', 'search']);
  });

  it('qualifies every copy of a shared name with its server id', () => {
    expect(offeredNames([t('a', 'x'), t('b', 'x'), t('b', 'y')])).toEqual(['a.x', 'b.x', 'y']);
  });

  it('still gives unique names when a qualified name is some tool\'s own name', () => {
    const names = offeredNames([t('a', 'b.x'), t('a', 'x'), t('c', 'x'), t('z', 'a.x')]);
    expect(names).toEqual(['b.x', 'a.x~2', 'c.x', 'a.x']);
    expect(new Set(names).size).toBe(4);
  });
});
