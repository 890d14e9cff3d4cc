// postinstall: make faiss-node's native addon loadable.
// faiss-node's own install script downloads a prebuilt binary from GitHub, else clones faiss from
// GitHub; package.json denies that script (allowScripts) so an offline install does not fail. Here we
// try the same prebuilt download (works for users with internet), and otherwise compile the package's
// single source file against Debian's libfaiss-dev, installing that package when we can.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
/** The prebuilt download gives up after this long (it fails at once when there is no internet). */
const PREBUILT_TIMEOUT_MS = 120_000;
/** apt-get update + install of libfaiss-dev. */
const APT_TIMEOUT_MS = 600_000;
const COMPILE_TIMEOUT_MS = 600_000;

const pkgDir = dirname(require.resolve('faiss-node/package.json'));
const addon = join(pkgDir, 'build', 'Release', 'faiss-node.node');
const log = (msg) => console.log(`[faiss-node] ${msg}`);

function addonLoads() {
  if (!existsSync(addon)) return false;
  const probe = `const f=require(${JSON.stringify(join(pkgDir, 'lib', 'index.js'))});const i=new f.IndexFlatL2(2);i.add([1,0]);if(i.ntotal()!==1)process.exit(1)`;
  return spawnSync(process.execPath, ['-e', probe], { stdio: 'ignore' }).status === 0;
}

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  return res.status === 0;
}

function tryPrebuilt() {
  if (process.env.CORTEX_FAISS_NO_PREBUILT) return false;
  const bin = join(dirname(require.resolve('prebuild-install/package.json', { paths: [pkgDir] })), 'bin.js');
  log('trying the upstream prebuilt binary (needs internet)...');
  return run(process.execPath, [bin, '--runtime', 'napi'], { cwd: pkgDir, stdio: 'ignore', timeout: PREBUILT_TIMEOUT_MS }) && addonLoads();
}

function ensureLibfaiss() {
  if (existsSync('/usr/include/faiss/IndexFlat.h')) return true;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.error(
      '[faiss-node] The FAISS library is missing and the prebuilt binary could not be downloaded.\n' +
        '  On Debian/Ubuntu: sudo apt-get install -y libfaiss-dev g++ && npm rebuild cortex-r --foreground-scripts\n' +
        '  Elsewhere: install FAISS 1.7 headers and library, then run `node scripts/build-faiss.mjs`.',
    );
    return false;
  }
  log("installing Debian's libfaiss-dev...");
  return (
    run('apt-get', ['update', '-qq'], { timeout: APT_TIMEOUT_MS }) &&
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'libfaiss-dev'], {
      timeout: APT_TIMEOUT_MS,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    })
  );
}

function compileAgainstSystemFaiss() {
  const nodeHeaders = ['/usr/include/node', join(dirname(process.execPath), '..', 'include', 'node')].find((d) =>
    existsSync(join(d, 'node_api.h')),
  );
  if (!nodeHeaders) {
    console.error('[faiss-node] Node headers (node_api.h) not found; install them (Debian: libnode-dev) and retry.');
    return false;
  }
  // faiss 1.7.3 (Debian 12) declares idx_t inside Index only; faiss-node expects faiss::idx_t.
  const shim = join(tmpdir(), `cortex-faiss-idx-${process.pid}.h`);
  writeFileSync(shim, '#include <faiss/Index.h>\nnamespace faiss { using idx_t = Index::idx_t; }\n');
  mkdirSync(dirname(addon), { recursive: true });
  const addonApi = dirname(require.resolve('node-addon-api/package.json', { paths: [pkgDir] }));
  log('compiling src/faiss.cc against the system FAISS (about 10 s)...');
  const ok = run(
    'g++',
    ['-O2', '-shared', '-fPIC', '-fopenmp', '-std=c++17', '-DNAPI_VERSION=6', '-DNAPI_DISABLE_CPP_EXCEPTIONS',
      '-include', shim, `-I${nodeHeaders}`, `-I${addonApi}`, join(pkgDir, 'src', 'faiss.cc'),
      '-o', addon, '-lfaiss', '-lgomp', '-lblas', '-llapack'],
    { timeout: COMPILE_TIMEOUT_MS },
  );
  return ok && addonLoads();
}

if (addonLoads()) {
  log('native addon ready');
} else if (tryPrebuilt()) {
  log('prebuilt binary installed');
} else if (ensureLibfaiss() && compileAgainstSystemFaiss()) {
  log('built against the system FAISS');
} else {
  console.error('[faiss-node] could not build the native addon; document search (RAG) needs it.');
  process.exit(1);
}
