"""An event form made of web components, shaped like Bokeh/Panel's and other component libraries': each widget
is a custom element whose open shadow root holds its label and control, with the same `id=input` in every
component (ids are per tree), a checkbox whose text is no <label> at all, a checkbox whose <label> a person
clicks (the browser forwards that click to the box), a rich-text editor with no label, and a Save button that
collects every value through the shadow roots and posts it as JSON (no <form> crosses a shadow boundary).

`component_page("recorded")` is the page as recorded: the widgets inside one `<ev-form>` host.
`component_page("redesign")` is the same components after a redesign: other wrappers and host nesting (the
widgets moved into `<ev-section>` hosts inside `<ev-form>`'s shadow root, in another order), other classes
inside each component, a toolbar with more buttons. The server keeps the posts to `/cmp-sent`.
"""

from __future__ import annotations

COMPONENTS = r"""
const css = (design) => design === 'redesign'
  ? ':host{display:block;margin:14px 0} .wrap{display:flex;gap:12px} label,.caption{font:15px serif;color:#225}'
  : ':host{display:block;margin:8px 0} .group label,.text{font:14px sans-serif}';
const design = document.documentElement.dataset.design;
class Base extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${css(design)}</style>` + this.render(this.getAttribute('label') || '');
  }
  get control() { return this.shadowRoot.querySelector('#input, [contenteditable]'); }
}
customElements.define('ev-field', class extends Base {
  render(label) {
    return design === 'redesign'
      ? `<div class="wrap"><input id="input" type="text" class="control"><label for="input">${label}</label></div>`
      : `<div class="group"><label for="input">${label}</label>` +
        '<div class="box"><input id="input" type="text"></div></div>';
  }
  get value() { return this.control.value; }
});
customElements.define('ev-choice', class extends Base {
  render(label) {
    const options = design === 'redesign' ? ['Workshop', 'Meetup', 'Conference'] : ['Conference', 'Meetup', 'Workshop'];
    return `<div class="${design === 'redesign' ? 'wrap' : 'group'}"><label for="input">${label}</label>` +
      `<select id="input">${options.map((o) => `<option>${o}</option>`).join('')}</select></div>`;
  }
  get value() { return this.control.value; }
});
customElements.define('ev-check', class extends Base {   // the text beside the box is no <label>
  render(label) {
    return design === 'redesign'
      ? `<span class="holder"><input id="input" type="checkbox"></span><span class="caption">${label}</span>`
      : `<input id="input" type="checkbox"><div class="text">${label}</div>`;
  }
  get value() { return this.control.checked; }
});
customElements.define('ev-toggle', class extends Base {  // a real <label for>: clicking it checks the box
  render(label) {
    return `<input id="input" type="checkbox"> <label for="input" style="padding:6px 20px">${label}</label>`;
  }
  get value() { return this.control.checked; }
});
customElements.define('ev-editor', class extends Base {  // rich text: a toolbar and an editable area, no label
  render() {
    const buttons = design === 'redesign' ? ['bold', 'italic', 'underline', 'link'] : ['bold', 'italic'];
    const tools = buttons.map((b) => `<button type="button" aria-label="${b}">${b[0]}</button>`).join('');
    return `<div class="toolbar">${tools}</div>` +
      `<div class="${design === 'redesign' ? 'editor-area' : 'editor'}" contenteditable="true" ` +
      `style="min-height:60px;border:1px solid #888;padding:4px"></div>`;
  }
  get value() { return this.control.innerText.trim(); }
});
customElements.define('ev-section', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.attachShadow({ mode: 'open' }).innerHTML = `<fieldset><legend>${this.getAttribute('title')}</legend>` +
      this.dataset.inner + '</fieldset>';
  }
});
const deep = (root, out = []) => {
  for (const el of root.querySelectorAll('*')) {
    if (el.shadowRoot) { if (el.getAttribute('name')) out.push(el); deep(el.shadowRoot, out); }
  }
  return out;
};
customElements.define('ev-form', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = this.dataset.inner +
      '<p><button type="button" class="save">Save event</button></p><p class="said"></p>';
    root.querySelector('.save').addEventListener('click', async () => {
      const values = {};
      for (const el of deep(root)) values[el.getAttribute('name')] = el.value;
      const response = await fetch('/cmp-sent', { method: 'POST', body: JSON.stringify(values),
                                                 headers: { 'Content-Type': 'application/json' } });
      root.querySelector('.said').textContent = response.ok ? 'Saved' : 'Not saved';
    });
  }
});
"""

WIDGETS = {
    "title": '<ev-field name="title" label="Title"></ev-field>',
    "category": '<ev-choice name="category" label="Category"></ev-choice>',
    "public": '<ev-check name="public" label="Public"></ev-check>',
    "notify": '<ev-toggle name="notify" label="Notify me"></ev-toggle>',
    "notes": '<ev-editor name="notes"></ev-editor>',
}


def _attr(html: str) -> str:
    return html.replace("&", "&amp;").replace('"', "&quot;")


def component_page(design: str = "recorded") -> str:
    """The event form of web components, as recorded or after its redesign."""
    if design == "redesign":
        first = "".join(WIDGETS[k] for k in ("category", "title"))
        second = "".join(WIDGETS[k] for k in ("notes", "notify", "public"))
        inner = (f'<div class="layout"><ev-section title="About" data-inner="{_attr(first)}"></ev-section>'
                 f'<div class="col"><ev-section title="Details" data-inner="{_attr(second)}"></ev-section></div></div>')
    else:
        inner = "".join(WIDGETS[k] for k in ("title", "category", "public", "notify", "notes"))
    return (f'<!doctype html><html data-design="{design}"><title>New event</title>'
            f'<body style="margin:0;padding:30px;font:16px sans-serif"><h1>New event</h1>'
            f'<main><ev-form data-inner="{_attr(inner)}"></ev-form></main>'
            f'<script>{COMPONENTS}</script></body></html>')
