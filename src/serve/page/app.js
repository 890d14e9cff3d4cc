// Cortex-R page: asks over POST /v1/ask and renders its server-sent events as they arrive.
// Model text is only ever set with textContent, never parsed as HTML.
'use strict';

const $ = (id) => document.getElementById(id);
const ARGS_PREVIEW_CHARS = 200;
const SOURCE_PATTERN = /\[Source: ([^\]]{1,300})\]/g;

let token = sessionStorage.getItem('cortex-token') || '';
let running = null;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function preview(value) {
  const text = JSON.stringify(value) ?? '';
  return text.length <= ARGS_PREVIEW_CHARS ? text : `${text.slice(0, ARGS_PREVIEW_CHARS - 1)}…`;
}

async function api(path, init = {}) {
  const headers = new Headers(init.headers || {});
  if (token) headers.set('authorization', `Bearer ${token}`);
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401) {
    const given = window.prompt('This server needs its API token (CORTEX_API_TOKEN):');
    if (given) {
      token = given.trim();
      sessionStorage.setItem('cortex-token', token);
      return api(path, init);
    }
  }
  return response;
}

async function errorText(response) {
  try {
    const body = await response.json();
    return body.error ? `${body.error.message} (${response.status})` : `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

// ---- servers, sessions, documents ----

async function loadServers() {
  const response = await api('/v1/servers');
  if (!response.ok) return;
  const { servers } = await response.json();
  $('servers').textContent = `servers: ${servers.map((s) => `${s.id} (${s.state === 'ready' ? `${s.tools.length} tools` : s.state})`).join(', ') || 'none'}`;
}

async function loadSessions(select) {
  const response = await api('/v1/sessions?limit=50');
  if (!response.ok) return;
  const { sessions } = await response.json();
  const box = $('session');
  const current = select ?? box.value;
  box.replaceChildren(el('option', '', 'new session'));
  box.firstChild.value = '';
  for (const s of sessions) {
    const option = el('option', '', `${s.id} · ${(s.first_query || '').slice(0, 40)}`);
    option.value = s.id;
    box.append(option);
  }
  box.value = current;
}

async function loadHistory() {
  const list = $('history');
  const id = $('session').value;
  if (!id) {
    list.replaceChildren(el('li', 'muted', 'nothing yet'));
    return;
  }
  const response = await api(`/v1/sessions/${encodeURIComponent(id)}`);
  if (!response.ok) {
    list.replaceChildren(el('li', 'muted', await errorText(response)));
    return;
  }
  const { items } = await response.json();
  const entries = [];
  for (const item of items) {
    if (item.type === 'run_metadata' && item.metadata && item.metadata.event === 'start') entries.push({ q: item.text, a: null });
    else if (item.type === 'final_answer' && entries.length) entries[entries.length - 1].a = item.final_answer ?? item.text;
  }
  list.replaceChildren(...entries.map(({ q, a }) => {
    const li = el('li', 'q', q);
    li.append(el('span', 'a', a === null ? '(no answer)' : a));
    return li;
  }));
  if (!entries.length) list.replaceChildren(el('li', 'muted', 'nothing yet'));
}

async function loadDocuments() {
  const response = await api('/v1/documents');
  if (!response.ok) return;
  const { documents, total } = await response.json();
  $('documents').replaceChildren(...documents.map((d) => el('li', '', `${d.name} (${Math.ceil(d.bytes / 1024)} KB)`)));
  if (total > documents.length) $('documents').append(el('li', 'muted', `… ${total - documents.length} more`));
}

async function upload(file) {
  const status = $('upload-status');
  status.textContent = `indexing ${file.name}…`;
  const response = await api(`/v1/documents?name=${encodeURIComponent(file.name)}`, { method: 'POST', body: file, headers: { 'content-type': 'application/octet-stream' } });
  if (response.ok) {
    const body = await response.json();
    status.textContent = `indexed ${body.name}: ${body.chunks} chunks`;
    await loadDocuments();
  } else {
    status.textContent = `not indexed: ${await errorText(response)}`;
  }
}

// ---- asking ----

function renderer() {
  const steps = $('steps');
  let attempt = null;
  let pending = [];
  const sources = new Set();
  const collect = (text) => { for (const m of String(text).matchAll(SOURCE_PATTERN)) sources.add(m[1]); };
  const line = (className, text) => { const li = el('li', className, text); steps.append(li); return li; };
  return {
    sources,
    event(type, data) {
      switch (type) {
        case 'perceiving':
          line('perceiving', `Step ${data.step}/${data.maxSteps}: choosing servers…`);
          break;
        case 'perceived':
          line('perceived', `Servers: ${data.servers.join(', ') || '(none)'}${data.fallback ? ' (all: no usable choice)' : ''}`);
          break;
        case 'planning':
          attempt = line('attempt', `Step ${data.step}/${data.maxSteps} · planning (${data.lifelinesLeft} retries left, ${data.strategy})`);
          pending = [];
          break;
        case 'running': {
          const target = attempt ?? line('attempt', 'Running');
          target.append(el('pre', 'code', data.code));
          break;
        }
        case 'tool_call': {
          const target = attempt ?? line('attempt', 'Tool calls');
          const { record } = data;
          const open = data.phase === 'start' && record.progress ? pending.find((c) => c.dataset.tool === record.tool) : undefined;
          if (open) {
            const { progress, total, message } = record.progress;
            open.textContent = `${record.tool}(${preview(record.args)}) · ${total !== undefined ? `${progress}/${total}` : progress}${message ? ` ${message}` : ''}`;
          } else if (data.phase === 'start') {
            const call = el('div', 'call pending', `${record.tool}(${preview(record.args)})`);
            call.dataset.tool = record.tool;
            target.append(call);
            pending.push(call);
          } else {
            const i = pending.findIndex((c) => c.dataset.tool === record.tool);
            const call = i >= 0 ? pending.splice(i, 1)[0] : target.appendChild(el('div', 'call'));
            call.className = `call ${record.ok ? 'ok' : 'bad'}`;
            call.textContent = `${record.tool}(${preview(record.args)}) · ${record.ms} ms${record.error ? ` · ${record.error}` : ''}`;
          }
          break;
        }
        case 'outcome': {
          const target = attempt ?? line('attempt', '');
          const good = data.outcome === 'final_answer' || data.outcome === 'further_processing';
          target.classList.add(good ? 'ok' : 'bad');
          if (!good) target.classList.add('retry');
          const label = { final_answer: 'answer', further_processing: 'result for the next step', invalid_plan: 'invalid plan, retrying', sandbox_error: 'error, retrying' }[data.outcome] ?? data.outcome;
          target.append(el('div', 'detail', `${label}: ${data.detail}`));
          collect(data.detail);
          attempt = null;
          break;
        }
      }
    },
  };
}

function showAnswer(result, sources) {
  const box = $('answer');
  box.hidden = false;
  box.className = result.status === 'answered' ? 'answered' : 'gave-up';
  $('answer-text').textContent = result.status === 'answered' ? result.answer : `${result.status === 'cancelled' ? 'Cancelled' : 'Gave up'}: ${result.reason ?? ''}`;
  if (result.answer) for (const m of result.answer.matchAll(SOURCE_PATTERN)) sources.add(m[1]);
  $('source-list').replaceChildren(...[...sources].map((s) => el('li', '', s)));
  $('sources').hidden = sources.size === 0;
  const calls = result.steps.reduce((n, s) => n + s.tool_calls.length, 0);
  $('answer-meta').textContent = `session ${result.session_id} · ${result.steps.length} attempt(s) · ${calls} tool call(s) · ${result.timings.total_ms} ms`;
}

function showError(message) {
  const box = $('answer');
  box.hidden = false;
  box.className = 'gave-up';
  $('answer-text').textContent = message;
  $('sources').hidden = true;
  $('answer-meta').textContent = '';
}

/** Splits a growing SSE text into complete frames; returns [frames, rest]. */
function frames(buffer) {
  const parts = buffer.split('\n\n');
  const rest = parts.pop();
  return [parts.map((part) => {
    let event = 'message';
    const data = [];
    for (const l of part.split('\n')) {
      if (l.startsWith('event:')) event = l.slice(6).trim();
      else if (l.startsWith('data:')) data.push(l.slice(5).trimStart());
    }
    return { event, data: data.join('\n') };
  }), rest];
}

async function ask(question) {
  const controller = new AbortController();
  running = controller;
  $('ask').disabled = true;
  $('stop').disabled = false;
  $('steps').replaceChildren();
  $('answer').hidden = true;
  const view = renderer();
  const sessionId = $('session').value;
  try {
    const response = await api('/v1/ask', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(sessionId ? { question, session_id: sessionId } : { question }),
      signal: controller.signal,
    });
    if (!response.ok) return showError(await errorText(response));
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      let complete;
      [complete, buffer] = frames(buffer + value);
      for (const { event, data } of complete) {
        const parsed = JSON.parse(data);
        if (event === 'result') {
          showAnswer(parsed, view.sources);
          await loadSessions(parsed.session_id);
          await loadHistory();
        } else if (event === 'error') {
          showError(parsed.error.message);
        } else {
          view.event(event, parsed);
        }
      }
    }
  } catch (err) {
    showError(err.name === 'AbortError' ? 'Stopped.' : `The connection failed: ${err.message}`);
  } finally {
    running = null;
    $('ask').disabled = false;
    $('stop').disabled = true;
  }
}

// ---- wiring ----

$('ask-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const question = $('question').value.trim();
  if (question && !running) ask(question);
});
$('question').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) $('ask-form').requestSubmit();
});
$('stop').addEventListener('click', () => running?.abort());
$('session').addEventListener('change', loadHistory);
$('file').addEventListener('change', () => { for (const f of $('file').files) upload(f); });
const zone = $('dropzone');
for (const type of ['dragenter', 'dragover']) document.addEventListener(type, (e) => { e.preventDefault(); zone.classList.add('over'); });
document.addEventListener('dragleave', (e) => { if (e.target === zone || !e.relatedTarget) zone.classList.remove('over'); });
document.addEventListener('drop', (e) => {
  e.preventDefault();
  zone.classList.remove('over');
  for (const f of e.dataTransfer.files) upload(f);
});

loadServers();
loadSessions().then(loadHistory);
loadDocuments();
