// A server's request for input during a question: a small form typed from its schema, or a link to open, answered over POST /v1/elicitations/:id.
import { api, failureOf } from './api.js';
import { el } from './dom.js';

const ENDED = {
  accept: 'Answered.',
  decline: 'Declined.',
  cancel: 'Cancelled: the question stopped, or the request waited too long.',
};

/** The input of one field: a select for choices, a checkbox for yes/no, a number box, else a text box. */
function fieldInput(name, field, required) {
  const choices = field.enum ?? field.oneOf?.map((o) => o.const);
  const titles = field.oneOf ? Object.fromEntries(field.oneOf.map((o) => [o.const, o.title ?? o.const])) : {};
  let input;
  if (field.type === 'array') {
    input = el('select');
    input.multiple = true;
    for (const value of field.items?.enum ?? []) {
      const option = el('option', '', value);
      option.value = value;
      option.selected = Array.isArray(field.default) && field.default.includes(value);
      input.append(option);
    }
  } else if (choices) {
    input = el('select');
    if (!required || field.default === undefined) input.append(el('option', '', ''));
    for (const value of choices) {
      const option = el('option', '', titles[value] ?? value);
      option.value = value;
      option.selected = field.default === value;
      input.append(option);
    }
  } else if (field.type === 'boolean') {
    input = el('input');
    input.type = 'checkbox';
    input.checked = field.default === true;
  } else {
    input = el('input');
    if (field.type === 'number' || field.type === 'integer') {
      input.type = 'number';
      input.step = field.type === 'integer' ? '1' : 'any';
      if (field.minimum !== undefined) input.min = String(field.minimum);
      if (field.maximum !== undefined) input.max = String(field.maximum);
    } else {
      input.type = field.format === 'email' ? 'email' : field.format === 'uri' ? 'url' : 'text';
      if (field.minLength !== undefined) input.minLength = field.minLength;
      if (field.maxLength !== undefined) input.maxLength = field.maxLength;
    }
    if (field.default !== undefined) input.value = String(field.default);
  }
  input.name = name;
  if (required && field.type !== 'boolean') input.required = true;
  return input;
}

/** The form's values as the server's schema types them; an empty optional field is left out. */
function contentOf(fields, required, form) {
  const content = {};
  for (const [name, field] of Object.entries(fields)) {
    const input = form.elements.namedItem(name);
    if (field.type === 'array') content[name] = [...input.selectedOptions].map((o) => o.value);
    else if (field.type === 'boolean') content[name] = input.checked;
    else if (input.value === '' && !required.includes(name)) continue;
    else content[name] = field.type === 'number' || field.type === 'integer' ? Number(input.value) : input.value;
  }
  return content;
}

/** The box for one `elicitation` event; end(action) closes it when the server's `elicitation_end` arrives. */
export function elicitationForm(data) {
  const form = el('form', 'elicitation');
  // Cortex-R's own question before a call that needs the person's yes, or a tool server's request for input.
  const asker = data.approval ? 'Cortex-R asks before running a tool:' : data.question ? 'Cortex-R asks:' : `The tool server “${data.server}” asks:`;
  form.append(el('p', 'asker', asker), el('p', 'message', data.message));
  const fields = data.mode === 'form' ? data.fields : {};
  const required = data.mode === 'form' ? data.required : [];
  if (data.mode === 'url') {
    // Shown as its own text and opened only by the person: a server must not send them somewhere unseen.
    const link = el('a', 'url', data.url);
    link.href = data.url;
    link.rel = 'noopener noreferrer';
    link.target = '_blank';
    form.append(el('p', 'hint', 'It wants you to open this address (check it first):'), link);
  }
  for (const [name, field] of Object.entries(fields)) {
    const label = el('label', 'field');
    const title = el('span', 'name', field.title ?? name);
    if (required.includes(name)) title.append(el('span', 'required', ' *'));
    label.append(title, fieldInput(name, field, required.includes(name)));
    if (field.description) label.append(el('span', 'hint', field.description));
    form.append(label);
  }
  const accept = el('button', 'accept', data.approval ? 'Allow' : data.mode === 'url' ? 'Done' : 'Send');
  accept.type = 'submit';
  const decline = el('button', 'decline', data.approval ? 'Do not allow' : 'Decline');
  decline.type = 'button';
  const status = el('p', 'status', '');
  status.setAttribute('aria-live', 'polite');
  const buttons = el('div', 'buttons');
  buttons.append(accept, decline);
  form.append(buttons, status);

  const close = (text) => {
    for (const control of form.elements) control.disabled = true;
    form.classList.add('ended');
    status.textContent = text;
  };
  const send = async (body) => {
    for (const control of form.elements) control.disabled = true;
    status.textContent = 'Sending…';
    try {
      const response = await api(`/v1/elicitations/${encodeURIComponent(data.id)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw await failureOf(response);
      close(body.action === 'accept' ? 'Sent.' : 'Declined.');
    } catch (err) {
      // A refused answer leaves the form as it was, to be corrected and sent again.
      if (!form.classList.contains('ended')) for (const control of form.elements) control.disabled = false;
      status.textContent = err.detail || err.message;
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void send(data.mode === 'form' ? { action: 'accept', content: contentOf(fields, required, form) } : { action: 'accept' });
  });
  decline.addEventListener('click', () => void send({ action: 'decline' }));
  return {
    root: form,
    end(action) {
      if (!form.classList.contains('ended')) close(ENDED[action] ?? ENDED.cancel);
    },
  };
}
