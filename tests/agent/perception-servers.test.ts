// Perception sees third-party servers through their own tool names and instructions (bounded).
import { describe, expect, it } from 'vitest';
import { perceive } from '../../src/agent/perception.js';
import type { ServerSummary } from '../../src/mcp/types.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { perceptionJson } from './fakes.js';

async function promptFor(servers: ServerSummary[]): Promise<string> {
  const llm = new ScriptedLlm({ turns: [perceptionJson([servers[0]!.id])] });
  await perceive({ llm, query: 'Remember that Ada likes tea', servers, memorySummary: 'None yet.' });
  return llm.requests[0]!.prompt;
}

describe('perceive with servers that list no capabilities', () => {
  it('shows their tool names and instructions in place of capabilities', async () => {
    const prompt = await promptFor([
      { id: 'memory', description: '', capabilities: [], tools: ['create_entities', 'read_graph'], instructions: 'A knowledge graph.\nUse read_graph first.' },
    ]);
    expect(prompt).toContain('- memory: (no description); capabilities: create_entities, read_graph; instructions: A knowledge graph. Use read_graph first.');
  });

  it('bounds a server with many tools and long instructions', async () => {
    const tools = Array.from({ length: 45 }, (_, i) => `tool_${i}`);
    const prompt = await promptFor([{ id: 'big', description: 'd', capabilities: [], tools, instructions: 'x'.repeat(5_000) }]);
    const line = prompt.split('\n').find((l) => l.startsWith('- big:'))!;
    expect(line).toContain('tool_29 (+15 more); instructions: ');
    expect(line).not.toContain('tool_30');
    expect(line.length).toBeLessThan(1_000);
  });

  it('keeps the configured capabilities when the profile gives them', async () => {
    const prompt = await promptFor([{ id: 'math', description: 'Arithmetic', capabilities: ['add'], tools: ['add', 'subtract'] }]);
    expect(prompt).toContain('- math: Arithmetic; capabilities: add\n');
  });
});
