// `cortex skills`: list saved plans, save the last one-step plan of a session, run one again by name with no model.
import { terminalInteraction } from './terminal-elicit.js';
import type { LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { listSessions } from '../memory/session-files.js';
import { SessionMemory } from '../memory/session-memory.js';
import { skillFromTrace } from '../skills/make-skill.js';
import { savedPlanLlm, skillArguments, skillQuestion } from '../skills/saved-plan-llm.js';
import { checkSkillName, listSkills, readSkill, skillDefaults, writeSkill, type Skill } from '../skills/skill-file.js';
import { printResult } from './print-result.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { createProgress } from './progress.js';
import { Runtime, type RuntimeOptions } from '../runtime/runtime.js';
import { terminalAsk } from './terminal-ask.js';

/** `name = default` of each argument, for a person. */
function argumentsLine(skill: Skill): string {
  const list = Object.entries(skill.parameters).map(([k, p]) => `${k} = ${JSON.stringify(p.default)}`);
  return list.length ? list.join(', ') : 'no arguments';
}

export async function skillsListCommand(config: LoadedConfig, out: Output): Promise<number> {
  const { skills, problems } = await listSkills(config.paths.skills);
  for (const problem of problems) out.error(`warning: ${problem}`);
  if (out.json) out.result(skills.map(({ name, description, question, servers, parameters }) => ({ name, description, question, servers, parameters })));
  else if (skills.length === 0) out.line(`No saved plans yet in ${config.paths.skills}. Save one with \`cortex skills save NAME\` after a question is answered.`);
  else for (const s of skills) out.line(`${s.name}  ${out.dim(`(${argumentsLine(s)})`)}  ${s.question}`);
  return EXIT.ok;
}

/** Saves the plan that answered the last question of `session` (default: the latest session) as skill `name`. */
export async function skillsSaveCommand(config: LoadedConfig, name: string, session: string | undefined, out: Output): Promise<number> {
  checkSkillName(name);
  const id = session ?? (await listSessions(config.paths.memory, { limit: 1 }))[0]?.id;
  if (!id) throw new UsageError('there is no saved session to take a plan from: ask a question first');
  const memory = await SessionMemory.open({ baseDir: config.paths.memory, sessionId: id });
  const skill = await skillFromTrace({ name, traceFile: memory.tracePath, sessionId: memory.id });
  const path = await writeSkill(config.paths.skills, skill);
  if (out.json) out.result({ name, path, question: skill.question, parameters: skill.parameters });
  else out.line(`Saved the plan of "${skill.question}" as ${name} (${argumentsLine(skill)}) in ${path}`);
  return EXIT.ok;
}

/** Runs skill `name` with `argsJson` (a JSON object) through the sandbox, servers and flow policy: no model call. */
export async function skillsRunCommand(config: LoadedConfig, name: string, argsJson: string | undefined, options: RuntimeOptions, out: Output): Promise<number> {
  const skill = await readSkill(config.paths.skills, name);
  let given: unknown = {};
  if (argsJson !== undefined) {
    try {
      given = JSON.parse(argsJson);
    } catch {
      throw new UsageError(`the arguments must be a JSON object, e.g. '${JSON.stringify(skillDefaults(skill))}'`);
    }
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new UsageError('the arguments must be a JSON object');
  const values = skillArguments(skill, given as Record<string, unknown>);
  const ask = terminalAsk(out);
  const runtime = await Runtime.start(config, { ...options, llm: savedPlanLlm(skill, values), lazyServers: true }, out, ask ? terminalInteraction(ask) : {});
  try {
    const progress = createProgress(out);
    const result = await runtime.ask(skillQuestion(skill, values), { onEvent: progress.onEvent });
    progress.done();
    printResult(result, out);
    return result.status === 'answered' ? EXIT.ok : EXIT.gaveUp;
  } finally {
    await runtime.close();
  }
}
