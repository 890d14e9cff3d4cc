// Runs a skill without a model: an LlmClient that answers perception with the skill's servers and the plan request with its code.
import { QuestionStoppedError, UsageError } from '../errors.js';
import type { LlmClient } from '../llm/types.js';
import { skillDefaults, type Skill } from './skill-file.js';

/** The skill's arguments: its defaults, with `given` over them (same names, same types). @throws UsageError otherwise. */
export function skillArguments(skill: Skill, given: Record<string, unknown>): Record<string, string | number> {
  const values = skillDefaults(skill);
  const known = Object.keys(skill.parameters);
  for (const [key, value] of Object.entries(given)) {
    if (!(key in skill.parameters)) {
      throw new UsageError(`skill "${skill.name}" has no argument "${key}"; its arguments: ${known.length ? known.join(', ') : 'none'}`);
    }
    const want = typeof skill.parameters[key]!.default;
    if (typeof value !== want) throw new UsageError(`skill "${skill.name}": argument "${key}" must be a ${want}, not ${JSON.stringify(value)?.slice(0, 80)}`);
    values[key] = value as string | number;
  }
  return values;
}

/** The question the skill answers with these values (each `{name}` filled in): what the person asks by running it. */
export function skillQuestion(skill: Skill, values: Record<string, string | number>): string {
  return skill.question.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/**
 * The "model" of a skill run: perception gets the servers the plan used, the first plan request gets the plan with
 * `args` defined, and a second plan request (the plan failed, or did not answer in one step) stops the question.
 */
export function savedPlanLlm(skill: Skill, values: Record<string, string | number>): LlmClient {
  const code = `const args = Object.freeze(${JSON.stringify(values)});\n${skill.code}`;
  let plans = 0;
  const answer = (text: string) => ({ text, model: `skill:${skill.name}`, usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: 0 });
  return {
    provider: 'skill',
    model: `skill:${skill.name}`,
    generate: async (request) => {
      if (request.jsonSchema) return answer(JSON.stringify({ intent: `run the saved plan ${skill.name}`, entities: [], tool_hint: null, selected_servers: skill.servers }));
      if (++plans > 1) throw new QuestionStoppedError(`The saved plan "${skill.name}" did not answer with these arguments (see the error above); ask the question itself instead.`);
      return answer(`\`\`\`javascript\n${code}\n\`\`\``);
    },
    embed: async () => {
      throw new UsageError('a saved plan has no embedding model');
    },
  };
}
