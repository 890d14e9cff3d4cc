// The names tools are offered to the model under: the server's own, or `<server>.<tool>` where servers share one.

/**
 * One name per tool, in order, unique across servers. A tool whose name no other server offers keeps
 * it; a name two or more servers offer becomes `<server>.<tool>` on each of them (e.g.
 * `memory-a.create_entities` and `memory-b.create_entities`), so neither copy hides the other. In the
 * unlikely case a qualified name is still taken, `~2`, `~3`… is appended.
 */
export function offeredNames(tools: ReadonlyArray<{ server: string; remoteName: string }>): string[] {
  const servers = new Map<string, Set<string>>();
  for (const t of tools) servers.set(t.remoteName, (servers.get(t.remoteName) ?? new Set()).add(t.server));
  const taken = new Set(tools.filter((t) => servers.get(t.remoteName)!.size === 1).map((t) => t.remoteName));
  return tools.map((t) => {
    if (servers.get(t.remoteName)!.size === 1) return t.remoteName;
    const qualified = `${t.server}.${t.remoteName}`;
    let name = qualified;
    // Bounded by the number of tools: each loop step skips one name already taken.
    for (let n = 2; taken.has(name); n++) name = `${qualified}~${n}`;
    taken.add(name);
    return name;
  });
}
