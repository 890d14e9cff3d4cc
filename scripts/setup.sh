#!/usr/bin/env bash
# One command from a fresh clone: install, build, check the MCP servers, then ask a sample question.
# With no LLM configured, everything else still runs and the last lines say how to point Cortex-R at one.
set -euo pipefail
cd "$(dirname "$0")/.."

# apt-get update once, for whichever of Tesseract and Chromium below is missing (again only if it failed).
apt_updated=
apt_update() {
  [ -n "$apt_updated" ] || { apt-get update -qq && apt_updated=1; }
}

echo "==> Tesseract OCR (reads scanned pages and pictures of text in documents/ when no vision model is set)"
if command -v tesseract >/dev/null 2>&1; then
  echo "    found $(command -v tesseract)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  { apt_update && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tesseract-ocr tesseract-ocr-eng; } \
    || echo "    could not install it; scans will need a vision model (llm.vision, see the README)"
else
  echo "    not installed (needs root); to read scans without a vision model: sudo apt-get install -y tesseract-ocr tesseract-ocr-eng"
fi

echo "==> Installing dependencies (isolated-vm compiles from source; faiss-node is built against FAISS)"
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi

echo "==> Checking the sandbox (isolated-vm for Node $(node --version))"
node -e "require('isolated-vm')" 2>/dev/null || node -e "require('isolated-vm-node20')" 2>/dev/null || {
  echo "    isolated-vm did not install for Node $(node --version): Cortex-R needs Node 20.11+, 22 or 24 and a C++ compiler (g++, make, python3) on Node 20; see docs/node-versions.md" >&2
  exit 1
}
echo "    ok"

echo "==> Chromium for the web page's browser tests (Debian's package; no browser is ever downloaded)"
if [ -x /usr/bin/chromium ]; then
  echo "    found $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt_update && apt-get install -y -qq --no-install-recommends chromium
else
  echo "    skipped (not root): the page's tests need it: sudo apt-get install -y chromium"
fi

echo "==> Building"
npm run build --silent

echo "==> Checking the MCP servers"
node bin/cortex.js servers list

echo "==> Indexing the documents folder"
node bin/cortex.js index

echo "==> Asking a sample question"
status=0
node bin/cortex.js ask "What is the sum of the ASCII codes of the letters in INDIA?" || status=$?
case "$status" in
  0) echo "==> Done. Ask your own: node bin/cortex.js ask \"...\"  (or npm link, then: cortex ask \"...\")" ;;
  3) cat <<'MSG'
==> Set-up is complete, but no LLM is reachable, so the sample question was not answered.
    Point Cortex-R at one, then run: node bin/cortex.js ask "What is 2 to the power of 10?"
      Gemini:  export GEMINI_API_KEY=<your key>        (https://aistudio.google.com/apikey)
      Ollama:  install it (https://ollama.com), start it (ollama serve), then: ollama pull qwen2.5-coder:7b
               (another host: export OLLAMA_HOST=http://host:11434)
MSG
     ;;
  *) echo "==> The sample question failed (exit $status); see the message above."; exit "$status" ;;
esac
