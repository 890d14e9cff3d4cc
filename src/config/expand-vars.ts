// `${VAR}`, `${env:VAR}`, `${VAR:-default}`, `${workspaceFolder}` and `${userHome}` in MCP server entries, as other clients expand them.

/** What a `${…}` may refer to. */
export interface ExpandContext {
  env: NodeJS.ProcessEnv;
  /** The folder the config belongs to (VS Code's `${workspaceFolder}`). */
  workspaceFolder: string;
}

/** The expanded text, and the references that could not be expanded (unset variables, `${input:…}` prompts). */
export interface Expanded {
  value: string;
  missing: string[];
}

const REFERENCE = /\$\{([^}]{1,200})\}/g;

/**
 * Expands every `${…}` in `text`. Unset variables without a `:-default` and VS Code `${input:ID}` prompts (we
 * cannot prompt for them) are left in place and reported in `missing`, so the caller can refuse the entry.
 */
export function expandVars(text: string, { env, workspaceFolder }: ExpandContext): Expanded {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (whole, inner: string) => {
    const ref = inner.trim();
    if (ref === 'workspaceFolder' || ref === 'workspaceRoot') return workspaceFolder;
    if (ref === 'userHome') return env.HOME ?? whole;
    if (ref.startsWith('input:')) {
      missing.push(whole);
      return whole;
    }
    const body = ref.startsWith('env:') ? ref.slice(4) : ref;
    const [name, fallback] = splitDefault(body);
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    missing.push(whole);
    return whole;
  });
  return { value, missing };
}

function splitDefault(body: string): [string, string | undefined] {
  const at = body.indexOf(':-');
  return at < 0 ? [body.trim(), undefined] : [body.slice(0, at).trim(), body.slice(at + 2)];
}
