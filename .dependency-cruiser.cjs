// The import rules of src/: no circles, and no import that runs back up a floor. Checked by tests/architecture.
// Floors, top to bottom: a file may import its own folder, its floor's other folders (without a circle) and any
// floor below. The order is the one the code has (docs/how-it-works.md, "Floors").
const FLOORS = [
  ['cli'],
  ['serve'],
  ['runtime'],
  ['hooks', 'telemetry'],
  ['agent', 'skills'],
  ['ask-user', 'reply'],
  ['memory', 'sandbox'],
  ['budget', 'policy', 'rag'],
  ['llm', 'mcp', 'net'],
  ['config', 'model-messages', 'safe-files', 'time', 'version'],
  ['atomic-write', 'closest-names', 'errors', 'kept-by-version', 'paths', 'result-shape'],
];

/** A folder of src/ (`src/mcp/`) or a file at its top (`src/errors.ts`). */
const room = (name) => `^src/${name}(/|\\.ts$)`;
const anyOf = (names) => names.map(room).join('|');

const upward = FLOORS.slice(1).map((floor, i) => ({
  name: `up-from-${floor.join('+')}`,
  comment: `${floor.join(', ')} may not import a floor above it (${FLOORS.slice(0, i + 1).flat().join(', ')})`,
  severity: 'error',
  from: { path: anyOf(floor) },
  to: { path: anyOf(FLOORS.slice(0, i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'an import circle', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'no-unplaced-room',
      comment: 'every folder of src/ is on a floor (add a new one to FLOORS)',
      severity: 'error',
      from: { path: '^src/', pathNot: anyOf(FLOORS.flat()) },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.(js|mjs|css|html)$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
