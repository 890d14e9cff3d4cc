// Documents dropped anywhere on the chat (or chosen): each upload's progress and result shown beside the thread.
import { askForToken, authorization, Failure, headingFor, NOT_REACHABLE } from './api.js';
import { el, plural } from './dom.js';

const $ = (id) => document.getElementById(id);

/**
 * POSTs `file` to /v1/documents with XMLHttpRequest (fetch cannot report upload progress); `onProgress(fraction)`
 * while it is sent. Resolves with the JSON answer. @throws Failure naming what went wrong in plain words.
 */
function send(file, onProgress, retried = false) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/v1/documents?name=${encodeURIComponent(file.name)}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    const auth = authorization();
    if (auth) xhr.setRequestHeader('authorization', auth);
    xhr.responseType = 'json';
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('error', () => reject(new Failure(NOT_REACHABLE, 'The page could not connect to the server that served it.')));
    xhr.addEventListener('load', () => {
      if (xhr.status === 401 && !retried && askForToken()) return resolve(send(file, onProgress, true));
      const error = xhr.response?.error;
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.response);
      else reject(new Failure(headingFor(error?.code, xhr.status), error?.message ?? '', xhr.status));
    });
    xhr.send(file);
  });
}

/** Uploads one file into the documents folder and indexes it, showing how far it got; `done()` after either way. */
export async function upload(file, done = () => {}) {
  const row = el('li', 'upload running');
  const label = el('span', 'upload-text', `Sending ${file.name}…`);
  const bar = el('progress', 'upload-bar');
  bar.max = 1;
  bar.value = 0;
  const dismiss = el('button', 'dismiss', '×');
  dismiss.type = 'button';
  dismiss.setAttribute('aria-label', `Hide ${file.name}`);
  dismiss.addEventListener('click', () => row.remove());
  row.append(label, bar, dismiss);
  $('uploads').append(row);
  try {
    const body = await send(file, (fraction) => {
      bar.value = fraction;
      if (fraction >= 1) {
        // Sent: the server reads and indexes it now, for as long as that takes.
        label.textContent = `Indexing ${file.name}…`;
        bar.removeAttribute('value');
      }
    });
    row.className = 'upload ok';
    const chunks = plural(body.chunks, 'chunk', 'chunks');
    label.textContent = body.name === file.name ? `Indexed ${file.name}: ${chunks}` : `Indexed ${file.name} as ${body.name}: ${chunks}`;
  } catch (err) {
    row.className = 'upload bad';
    // The reason as the server gave it names the person's file; the heading alone when it gave none.
    label.textContent = `${file.name} was not indexed: ${err.detail || err.heading || err.message}`;
  } finally {
    bar.remove();
    done();
  }
}
