/*
 * inspect.js: what page_inspect, page_hit, page_watch and page_save_media read about one element. Run on
 * demand (app/browser/inspect.py) in the same isolated world as locator.js, whose `__bp.elements` and
 * `__bp.element.*` it uses, so a locator means here exactly what it means to every other operation.
 *
 * `__bpInspect(request)` with request `{op: "inspect" | "hit" | "watch" | "media", locator?, x?, y?}`
 * returns JSON-compatible data or `{error: kind, message}` (kinds: none, many, invalid, stale).
 *
 * Locator alternatives are the ones a recording keeps, in replay order (workflows/nodes.py): role + name,
 * test id, label, placeholder, text, then a CSS selector and an XPath. Each is kept only when it finds this
 * element and nothing else.
 */
((request) => {
  'use strict';
  const bp = window.__bp;
  if (!bp || !bp.elements) return { error: 'missing', message: 'the page helper is not loaded yet' };
  const E = bp.element;
  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const q = (v) => '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const TESTIDS = ['data-testid', 'data-test', 'data-qa', 'data-cy'];
  const MEDIA = new Set(['img', 'video', 'audio', 'source', 'picture']);

  const only = (locator, el) => {
    try {
      const found = bp.elements(locator);
      return found.length === 1 && found[0] === el;
    } catch (e) { return false; }
  };

  function cssPath(el) {
    const doc = el.ownerDocument;
    if (el.id && only({ selector: '#' + CSS.escape(el.id) }, el)) return '#' + CSS.escape(el.id);
    const parts = [];
    for (let n = el; n && n.nodeType === 1 && n !== doc.documentElement; n = n.parentElement) {
      if (n !== el && n.id && doc.querySelectorAll('#' + CSS.escape(n.id)).length === 1) {
        parts.unshift('#' + CSS.escape(n.id));
        break;
      }
      let part = n.localName;
      const same = n.parentElement ? [...n.parentElement.children].filter((c) => c.localName === n.localName) : [];
      if (same.length > 1) part += `:nth-of-type(${same.indexOf(n) + 1})`;
      parts.unshift(part);
      const css = parts.join(' > ');
      if (only({ selector: css }, el)) return css;
    }
    const css = parts.join(' > ');
    return only({ selector: css }, el) ? css : null;
  }

  function xpathOf(el) {
    if (el.id && !/["']/.test(el.id)) {
      const byId = `//*[@id="${el.id}"]`;
      if (only({ xpath: byId }, el)) return byId;
    }
    const steps = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const same = n.parentElement ? [...n.parentElement.children].filter((c) => c.localName === n.localName) : [n];
      const name = n.namespaceURI === 'http://www.w3.org/1999/xhtml' ? n.localName : `*[local-name()="${n.localName}"]`;
      steps.unshift(same.length > 1 ? `${name}[${same.indexOf(n) + 1}]` : name);
    }
    const xpath = '/' + steps.join('/');
    return only({ xpath }, el) ? xpath : null;
  }

  /** {selector?, xpath?, alternatives: [...]}: a workflow node's locator for this element. */
  function alternativesOf(el) {
    const alts = [];
    const role = E.role(el);
    const name = E.name(el);
    if (role && name && name.length <= 80 && only({ selector: `role=${role}[name=${q(name)}s]` }, el)) {
      alts.push({ role, name, exact: true });
    }
    for (const attr of TESTIDS) {
      const v = el.getAttribute(attr);
      if (v && only({ selector: `testid=${q(v)}` }, el)) { alts.push({ testid: v }); break; }
    }
    const engines = [['label', name], ['placeholder', el.getAttribute('placeholder')], ['text', E.text(el)]];
    for (const [engine, value] of engines) {
      if (value && value.length <= 80 && only({ selector: `${engine}=${q(value)}` }, el)) {
        alts.push({ [engine]: value, exact: true });
      }
    }
    const selector = cssPath(el);
    const xpath = xpathOf(el);
    if (selector) alts.push({ selector });
    if (xpath) alts.push({ xpath });
    const locator = {};
    if (selector) locator.selector = selector; else if (xpath) locator.xpath = xpath;
    locator.alternatives = alts.filter((a) => !(a.selector && a.selector === locator.selector));
    return locator;
  }

  function mediaSource(el) {
    const tag = el.localName;
    if (tag === 'img') return el.currentSrc || el.src || '';
    if (tag === 'video' || tag === 'audio') {
      if (el.currentSrc) return el.currentSrc;
      if (el.src) return el.src;
      const source = el.querySelector('source[src]');
      return source ? source.src : '';
    }
    if (tag === 'source') return el.src || (el.srcset ? new URL(el.srcset.trim().split(/\s+/)[0], el.baseURI).href : '');
    if (tag === 'picture') { const img = el.querySelector('img'); return img ? (img.currentSrc || img.src) : ''; }
    return '';
  }

  function attributes(el) {
    const out = {};
    for (const a of [...el.attributes].slice(0, 60)) out[a.name] = clip(a.value, 300);
    return out;
  }

  function info(el) {
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    const data = {
      tag: el.localName, ref: E.ref(el), desc: E.describe(el), text: clip(E.text(el), 300),
      attributes: attributes(el), rect: E.rect(el), visible: E.visible(el),
      style: { display: style.display, visibility: style.visibility, opacity: style.opacity,
               pointerEvents: style.pointerEvents, cursor: style.cursor },
      role: E.role(el) || null, name: E.name(el) || null,
    };
    if (MEDIA.has(el.localName)) data.src = mediaSource(el);
    if ('value' in el && ['input', 'select', 'textarea'].includes(el.localName)) {
      data.value = el.type === 'password' ? '••••' : clip(String(el.value), 300);
    }
    if (el.ownerDocument !== document) data.frame = E.describe(el.ownerDocument.defaultView.frameElement);
    data.locator = alternativesOf(el);
    return data;
  }

  function one(locator) {
    let found;
    try { found = bp.elements(locator); } catch (e) { return { error: e.kind || 'invalid', message: e.message }; }
    if (!found.length) return { error: 'none', message: 'no element matches' };
    if (found.length > 1 && request.op !== 'watch') {
      return { error: 'many', count: found.length, items: found.slice(0, 5).map(E.describe) };
    }
    return { el: found[0], count: found.length };
  }

  if (request.op === 'hit') {
    const el = E.at(request.x, request.y);
    return el ? info(el) : { error: 'none', message: 'no element at that point (outside the viewport?)' };
  }
  const found = one(request.locator);
  const { el, count } = found;
  if (!el) return request.op === 'watch' && found.error === 'none' ? { count: 0 } : found;
  if (request.op === 'inspect') return info(el);
  if (request.op === 'media') {
    return { tag: el.localName, desc: E.describe(el), src: mediaSource(el), media: MEDIA.has(el.localName) };
  }
  // watch: what is compared between two looks
  const state = { count, text: E.text(el), attributes: attributes(el), visible: E.visible(el) };
  if ('value' in el && ['input', 'select', 'textarea'].includes(el.localName)) state.value = String(el.value);
  return state;
})
