// Saved plans a new plan may call as `skills.NAME(args)`: their catalogue lines, and the code that defines them in the run.
import { callee } from './call-args.js';
import type { PlanSkill } from './types.js';

/** How a plan calls a skill: `skills.ascii_sum` (a `-` becomes `_`; a name that is no identifier is quoted). */
function skillCallee(name: string): string {
  return callee(name.replace(/-/g, '_'), 'skills');
}

/** The skills a plan offered `tools` may run: those whose servers all offer tools among them. */
export function runnableSkills(skills: readonly PlanSkill[] | undefined, tools: readonly { server: string }[]): PlanSkill[] {
  const servers = new Set(tools.map((t) => t.server));
  return (skills ?? []).filter((s) => s.servers.every((id) => servers.has(id)));
}

/** The catalogue's section on saved plans: one line each, how to call it and what it answers. */
export function renderSkillCatalogue(skills: readonly PlanSkill[]): string {
  if (skills.length === 0) return '';
  return [
    'Saved plans (answers the user kept; each runs its own tool calls, which count against the limit, and resolves to its answer as a string):',
    ...skills.map((s) => {
      const args = Object.entries(s.defaults).map(([k, v]) => `${k}: ${typeof v}`).join(', ');
      return `- ${skillCallee(s.name)}(${args ? `{${args}}` : ''}): Promise<string>  — answers "${s.question.replace(/\s+/g, ' ').slice(0, 200)}"`;
    }),
  ].join('\n');
}

/**
 * `code` with `skills` defined after it, when it uses them: each skill is its saved code inside a function of its
 * arguments (checked against the defaults' names and types), so its `solve` and `args` stay its own. Appended, not
 * prepended, so the line numbers of errors in the plan's code stay the model's.
 */
export function withSkills(code: string, skills: readonly PlanSkill[] | undefined): string {
  if (!skills?.length || !/\bskills\b/.test(code)) return code;
  const members = skills.map((s) => {
    const id = JSON.stringify(s.name.replace(/-/g, '_'));
    const label = JSON.stringify(skillCallee(s.name));
    return `${id}: async function (given) {
  const defaults = ${JSON.stringify(s.defaults)};
  given = given ?? {};
  if (typeof given !== 'object') throw new TypeError(${label} + " takes an object of arguments: " + JSON.stringify(Object.keys(defaults)));
  for (const key of Object.keys(given)) {
    if (!(key in defaults)) throw new TypeError(${label} + ' has no argument "' + key + '"; its arguments: ' + (Object.keys(defaults).join(', ') || 'none'));
    if (typeof given[key] !== typeof defaults[key]) throw new TypeError(${label} + ': argument "' + key + '" must be a ' + typeof defaults[key]);
  }
  const args = Object.freeze({ ...defaults, ...given });
${s.code}
  const answer = String(await solve());
  return answer.replace(/^\\s*(FINAL_ANSWER|FURTHER_PROCESSING_REQUIRED)\\s*:\\s*/, '');
}`;
  });
  return `${code}\n;const skills = Object.freeze({\n${members.join(',\n')}\n});\n`;
}
