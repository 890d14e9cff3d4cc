// One answer's steps as its agent events arrive: servers chosen, each plan (its code growing while the model writes it), tool calls, outcomes, model requests and retries.
import { duration, el, plural } from './dom.js';
import { foldedText } from './folded-text.js';

const ARGS_PREVIEW_CHARS = 200;
/** How often the elapsed time of a running model request is redrawn. */
const TICK_MS = 1000;

const OUTCOME_LABELS = {
  final_answer: 'answered',
  further_processing: 'result for the next step',
  invalid_plan: 'not a usable plan, retrying',
  sandbox_error: 'the plan failed, retrying',
};

function preview(value) {
  const text = JSON.stringify(value) ?? '';
  return text.length <= ARGS_PREVIEW_CHARS ? text : `${text.slice(0, ARGS_PREVIEW_CHARS - 1)}…`;
}

/** A running request's elapsed time in whole seconds, so the redrawn line does not flicker through milliseconds. */
function elapsed(ms) {
  return ms < 60_000 ? `${Math.floor(ms / 1000)} s` : duration(ms);
}

function callText(record) {
  return `${record.tool}(${preview(record.args)})${record.ms !== undefined ? ` · ${duration(record.ms)}` : ''}${record.error ? ` · ${record.error}` : ''}`;
}

/**
 * Renders events into `list` (an <ol>); `onStatus(text)` gets one short line saying what is happening now (for the
 * folded summary). `now()` is the clock of the elapsed timer. Call dispose() when the answer is over.
 */
export function liveSteps(list, onStatus, now = () => performance.now()) {
  let attempt = null;
  let pending = [];
  let phase = '';
  let llm = null;
  /** The current attempt's plan as the model streamed it; replaced by the code that runs. */
  let streamed = null;
  const stats = { attempts: 0, calls: 0 };
  let maxSteps = '?';

  const line = (className, text, parent = list) => parent.appendChild(el('li', className, text));
  const target = () => attempt ?? line('attempt', '');
  const status = () => onStatus(llm ? `${phase} · ${elapsed(now() - llm.started)} · ${llm.tokens} tokens` : phase);
  const stopTimer = () => {
    if (llm) clearInterval(llm.timer);
  };

  const llmStart = (data) => {
    stopTimer();
    const parent = data.stage === 'decision' ? target() : list;
    const info = el(data.stage === 'decision' ? 'div' : 'li', 'llm', '');
    parent.append(info);
    const code = data.stage === 'decision' ? parent.appendChild(el('pre', 'code live', '')) : null;
    if (code) streamed = code;
    // One text node grown in place: a long reply arrives in thousands of pieces.
    const text = code ? code.appendChild(document.createTextNode('')) : null;
    llm = { started: now(), tokens: 0, info, code, text, model: data.model, stage: data.stage, timer: setInterval(() => tick(), TICK_MS) };
    phase = data.stage === 'decision' ? `Step ${data.step}/${maxSteps} · writing the plan` : 'Choosing servers';
    tick();
  };
  const tick = () => {
    if (!llm) return;
    llm.info.textContent = `${llm.model} · ${elapsed(now() - llm.started)} · ${llm.tokens} tokens so far`;
    status();
  };
  const llmEnd = (data) => {
    if (llm) {
      stopTimer();
      if (llm.code) {
        llm.code.classList.remove('live');
        // A request that wrote nothing (failed, or a client that does not stream) leaves no empty box.
        if (!llm.code.textContent) {
          llm.code.remove();
          streamed = null;
        }
      }
      llm.info.textContent = data.error
        ? `${data.model}: the request failed after ${duration(data.latencyMs)} (${data.error})`
        : `${data.model} answered in ${duration(data.latencyMs)} · ${data.completionTokens} tokens`;
      if (data.error) llm.info.classList.add('bad');
    }
    llm = null;
    status();
  };

  return {
    stats,
    event(type, data) {
      switch (type) {
        case 'perceiving':
          maxSteps = data.maxSteps;
          phase = 'Choosing servers';
          line('perceiving', `Step ${data.step}/${data.maxSteps}: choosing servers`);
          break;
        case 'perceived':
          line('perceived', `Servers: ${data.servers.join(', ') || '(none)'}${data.fallback ? ' (all: no usable choice)' : ''}`);
          break;
        case 'planning':
          maxSteps = data.maxSteps;
          stats.attempts += 1;
          phase = `Step ${data.step}/${data.maxSteps} · planning`;
          attempt = line('attempt', `Step ${data.step}/${data.maxSteps} · plan (${plural(data.lifelinesLeft, 'retry', 'retries')} left${data.strategy ? `, ${data.strategy}` : ''})`);
          pending = [];
          streamed = null;
          break;
        case 'llm_start':
          llmStart(data);
          break;
        case 'llm_text':
          if (!llm) break;
          llm.tokens = data.completionTokens;
          llm.text?.appendData(data.delta);
          tick();
          break;
        case 'llm_retry':
          line('retry', `Retrying (${data.attempt}/${data.maxAttempts}) after ${data.reason}${data.delayMs ? `, in ${duration(data.delayMs)}` : ''}`, data.stage === 'decision' ? target() : list);
          if (llm?.text) llm.text.data = '';
          break;
        case 'llm_notice':
          line('notice', data.message, data.stage === 'decision' ? target() : list);
          break;
        case 'llm_end':
          llmEnd(data);
          break;
        case 'running': {
          phase = `Step ${data.step}/${maxSteps} · running the plan`;
          if (streamed) {
            streamed.textContent = data.code;
            streamed.classList.remove('live');
          } else {
            target().append(el('pre', 'code', data.code));
          }
          streamed = null;
          break;
        }
        case 'tool_call': {
          const { record } = data;
          // A repeated start carries the server's progress: the pending line shows it.
          const open = data.phase === 'start' && record.progress ? pending.find((c) => c.dataset.tool === record.tool) : undefined;
          if (open) {
            const { progress, total, message } = record.progress;
            open.textContent = `${callText({ ...record, ms: undefined })} · ${total !== undefined ? `${progress}/${total}` : progress}${message ? ` ${message}` : ''}`;
          } else if (data.phase === 'start') {
            const call = target().appendChild(el('div', 'call pending', callText({ ...record, ms: undefined })));
            call.dataset.tool = record.tool;
            pending.push(call);
            phase = `Step ${data.step}/${maxSteps} · calling ${record.tool}`;
          } else {
            stats.calls += 1;
            const i = pending.findIndex((c) => c.dataset.tool === record.tool);
            const call = i >= 0 ? pending.splice(i, 1)[0] : target().appendChild(el('div', 'call'));
            call.className = `call ${record.ok ? 'ok' : 'bad'}`;
            call.textContent = callText(record);
          }
          break;
        }
        case 'outcome': {
          const box = target();
          const good = data.outcome === 'final_answer' || data.outcome === 'further_processing';
          box.classList.add(good ? 'ok' : 'bad');
          const label = OUTCOME_LABELS[data.outcome] ?? data.outcome;
          if (data.outcome === 'final_answer') box.append(el('div', 'detail', label));
          else if (good) box.append(foldedText(label, data.detail, 'detail'));
          else {
            // A person reads what went wrong in plain words and what the model said; the feedback is the model's.
            box.append(el('div', 'detail error', `${label}: ${data.diagnosis ?? 'the plan did not work'}`));
            if (data.said) box.append(foldedText('What the model said', data.said, 'detail'));
          }
          attempt = null;
          break;
        }
      }
      status();
    },
    /** The model request running now began `ms` ago (a page joining late learns it then), not when its event came. */
    backdate(ms) {
      if (!llm || typeof ms !== 'number') return;
      llm.started = now() - ms;
      tick();
    },
    /** Stops the timer (the answer ended, or the page left it). */
    dispose() {
      stopTimer();
      llm = null;
    },
  };
}
