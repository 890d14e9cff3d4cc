import { describe, expect, it } from 'vitest';
import { expandVars } from '../../src/config/expand-vars.js';

const ctx = { env: { HOME: '/home/ada', TOKEN: 't0k', EMPTY: '' }, workspaceFolder: '/proj' };

describe('expandVars', () => {
  it('expands ${VAR}, ${env:VAR}, ${workspaceFolder} and ${userHome}', () => {
    expect(expandVars('${TOKEN}:${env:TOKEN}:${workspaceFolder}/x:${userHome}', ctx)).toEqual({ value: 't0k:t0k:/proj/x:/home/ada', missing: [] });
  });

  it('uses the default of ${VAR:-default} when the variable is unset or empty', () => {
    expect(expandVars('${NOPE:-http://localhost:1}/${EMPTY:-e}', ctx).value).toBe('http://localhost:1/e');
  });

  it('reports unset variables and VS Code input prompts, leaving them in place', () => {
    expect(expandVars('a ${NOPE} ${input:key} $HOME', ctx)).toEqual({ value: 'a ${NOPE} ${input:key} $HOME', missing: ['${NOPE}', '${input:key}'] });
  });
});
