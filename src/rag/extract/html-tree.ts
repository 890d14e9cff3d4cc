// Walks a parsed HTML tree (domhandler nodes, as cheerio builds them) without recursion: depth and plain text.

/** The fields of a domhandler node this module reads. */
export interface TreeNode {
  type: string;
  name?: string;
  data?: string;
  children?: TreeNode[];
}

/** Tags that end a line of text. */
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre',
  'section', 'summary', 'table', 'td', 'th', 'tr', 'ul',
]);

/** Size of a parsed tree: deepest element nesting, number of elements, most element children of one node. */
export interface TreeStats {
  depth: number;
  elements: number;
  widest: number;
}

/** Measures `root` with an explicit stack, so a 100,000-level page can't overflow the call stack. */
export function treeStats(root: TreeNode): TreeStats {
  let depth = 0;
  let elements = 0;
  let widest = 0;
  const stack: Array<[TreeNode, number]> = [[root, 0]];
  // Bounded by the number of nodes: each is pushed once.
  while (stack.length > 0) {
    const [node, level] = stack.pop()!;
    if (level > depth) depth = level;
    let width = 0;
    for (const child of node.children ?? []) {
      if (!isElement(child)) continue;
      width++;
      stack.push([child, level + 1]);
    }
    elements += width;
    if (width > widest) widest = width;
  }
  return { depth, elements, widest };
}

/**
 * The text under `root`, one line per block element, whitespace collapsed, headings marked `#` and
 * list items `-` (enough structure for chunking); iterative like treeStats().
 */
export function treeText(root: TreeNode): string {
  const parts: string[] = [];
  const stack: Array<TreeNode | 'break'> = [root];
  // Bounded by twice the number of nodes: each node is pushed once, plus one break marker per block.
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item === 'break') {
      parts.push('\n');
      continue;
    }
    if (item.type === 'text') {
      parts.push(item.data ?? '');
      continue;
    }
    const name = isElement(item) ? (item.name ?? '') : '';
    if (BLOCK_TAGS.has(name)) {
      parts.push('\n', blockPrefix(name));
      stack.push('break');
    }
    const children = item.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return parts
    .join('')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '' && line !== '-' && !/^#+$/.test(line))
    .join('\n\n');
}

function blockPrefix(name: string): string {
  const heading = /^h([1-6])$/.exec(name);
  if (heading) return `${'#'.repeat(Number(heading[1]))} `;
  return name === 'li' ? '- ' : '';
}

function isElement(node: TreeNode): boolean {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}
