// Which values of a plan become a saved plan's arguments, and how they are named.
import { describe, expect, it } from 'vitest';
import { parameterise } from '../../src/skills/make-skill.js';

describe('parameterise', () => {
  it('names a value after the property it fills and marks it in the question', () => {
    const out = parameterise('async function solve() { return tools.power({ a: 2, b: 10 }); }', 'What is 2 to the power 10?');
    expect(out.code).toBe('async function solve() { return tools.power({ a: args.a, b: args.b }); }');
    expect(out.parameters).toEqual({ a: { default: 2 }, b: { default: 10 } });
    expect(out.question).toBe('What is {a} to the power {b}?');
  });

  it('leaves tool names, keys and values the question does not hold as they are', () => {
    const code = 'async function solve() { const r = await mcp.call_tool("search", { query: "cats" }); return tools["search"]({ search: "x", limit: 5 }); }';
    const out = parameterise(code, 'search for cats');
    expect(out.code).toBe('async function solve() { const r = await mcp.call_tool("search", { query: args.query }); return tools["search"]({ search: "x", limit: 5 }); }');
    expect(Object.keys(out.parameters)).toEqual(['query']);
  });

  it('gives one argument to a value used twice, and distinct names to different values of one key', () => {
    const out = parameterise('async function solve() { f({ city: "Paris" }); g({ city: "Lyon" }); h("Paris"); }', 'From Paris to Lyon');
    expect(out.parameters).toEqual({ city: { default: 'Paris' }, city_2: { default: 'Lyon' } });
    expect(out.code).toBe('async function solve() { f({ city: args.city }); g({ city: args.city_2 }); h(args.city); }');
  });
});
