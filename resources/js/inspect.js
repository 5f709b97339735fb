/*
 * inspect.js: what page_inspect, page_hit, page_watch and page_save_media read about one element. Run on
 * demand (app/browser/inspect.py) in the same isolated world as locator.js, whose `__bp.elements` and
 * `__bp.element.*` it uses, so a locator means here exactly what it means to every other operation.
 *
 * `__bpInspect(request)` with request `{op: "inspect" | "hit" | "watch" | "media", locator?, x?, y?}`
 * returns JSON-compatible data or `{error: kind, message}` (kinds: none, many, invalid, stale).
 *
 * The element's `locator` comes from the one generator, locator_gen.js (`__bpGen.locatorFor`): the same
 * ranked, verified-unique candidates a recording keeps.
 */
((request) => {
  'use strict';
  const bp = window.__bp;
  if (!bp || !bp.elements || !window.__bpGen) return { error: 'missing', message: 'the page helper is not loaded yet' };
  const E = bp.element;
  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const MEDIA = new Set(['img', 'video', 'audio', 'source', 'picture']);

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
    const { unique, ...locator } = window.__bpGen.locatorFor(el);
    data.locator = locator;
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
    const src = mediaSource(el);
    const data = { tag: el.localName, desc: E.describe(el), src, media: MEDIA.has(el.localName) };
    const typed = el.localName === 'source' ? el : (el.querySelector && el.querySelector('source[type]'));
    if (typed && typed.type) data.type = typed.type;
    if (src.startsWith('blob:')) {
      // A player fed through MediaSource: what its document fetched (resource timing), to find the manifest.
      const seen = [];
      for (const view of new Set([el.ownerDocument.defaultView, window])) {
        try {
          const origin = view.performance.timeOrigin;
          for (const entry of view.performance.getEntriesByType('resource')) seen.push([origin + entry.startTime, entry.name]);
        } catch (e) { /* another origin's frame */ }
      }
      data.fetched = seen.sort((a, b) => a[0] - b[0]).map((pair) => pair[1]).slice(-2000);
    }
    return data;
  }
  // watch: what is compared between two looks
  const state = { count, text: E.text(el), attributes: attributes(el), visible: E.visible(el) };
  if ('value' in el && ['input', 'select', 'textarea'].includes(el.localName)) state.value = String(el.value);
  return state;
})
