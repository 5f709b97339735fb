/*
 * heal.js: an element's fingerprint, and finding it again when its locator no longer does.
 *
 * `fingerprint(el)` is what a locator keeps of the element it was made for (ours: `locator.fingerprint`, which
 * the original app ignores): its kind (what can stand in for it: a text field, a button, a select, a checkbox,
 * a radio, a file input, a slider, a link, …), tag, type, role, accessible name, label, placeholder, visible
 * text, the attributes that identify it (name, a stable id, test ids, autocomplete, aria-label, a link's path,
 * a radio's value), its context (the nearest form: its identity and the kinds of controls it holds; the nearest
 * heading or legend; a dialog), its place among the controls of its kind in that form, and its neighbours' text.
 *
 * `find(locators, fp, opts)` is one poll of replay: the first locator that names exactly one element wins (as
 * before); when none does and a fingerprint is given, every visible element of the same kind, in the page, its
 * open shadow roots and same-origin frames (one pass, `__bp.elements`), is scored against the fingerprint
 * (0..1, a weighted mean over what the fingerprint knows). An element of another kind is never a candidate; one
 * in another form (a different form with its own submit target: `anotherForm`) is refused. The best is taken
 * only when it scores at least `threshold` and beats the runner-up by `margin`; candidates that would do exactly
 * the same as the best (`sameEffect`: the same address; the same form's button) are not its runners-up.
 *
 * Injected after locator.js and locator_gen.js into the helpers' isolated world; defines `__bpHeal`.
 */
(() => {
  'use strict';
  if (window.__bpHeal || !window.__bp) return;
  const bp = window.__bp;
  const E = bp.element;
  const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim();
  const clip = (s, n) => (s.length > n ? s.slice(0, n) : s);
  const TESTIDS = ['data-testid', 'data-test', 'data-qa', 'data-cy'];
  const TEXT_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date',
    'datetime-local', 'month', 'week', 'time']);
  const BUTTON_TYPES = new Set(['submit', 'button', 'reset', 'image']);
  const CANDIDATES = 'input, textarea, select, button, a[href], summary, [role], [contenteditable]';
  const THRESHOLD = 0.5, SOLE_THRESHOLD = 0.4, MARGIN = 0.12, FORM_MIN = 0.5;

  /** What can stand in for an element: elements of one kind are interchangeable, of two kinds never. */
  function kindOf(el) {
    const tag = el.localName;
    const role = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (tag === 'input') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (type === 'hidden') return E.editor(el) ? 'text' : 'hidden';   // a field an editor stands for is typed into
      if (BUTTON_TYPES.has(type)) return 'button';
      if (type === 'checkbox') return 'check';
      if (type === 'radio') return 'radio';
      if (type === 'file') return 'file';
      if (type === 'range') return 'range';
      if (type === 'color') return 'color';
      return TEXT_TYPES.has(type) ? 'text' : 'other:' + type;
    }
    if (tag === 'textarea') return 'text';
    if (tag === 'select') return 'select';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'a' && el.hasAttribute('href')) return role === 'button' ? 'button' : 'link';
    if (role === 'button') return 'button';
    if (role === 'link') return 'link';
    if (role === 'textbox' || role === 'searchbox') return 'text';
    if (role === 'checkbox' || role === 'switch') return 'check';
    if (role === 'radio') return 'radio';
    if (role === 'slider') return 'range';
    if (role === 'combobox' || role === 'listbox') return 'select';
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'text';
    return 'other:' + (role || tag);
  }

  /** Kind, tag and type: `text/input/email`, `text/textarea`, `button/button`. */
  const sortOf = (el) => {
    const kind = kindOf(el);
    if (kind !== 'text') return kind;   // a button is a button, <button> or <input type=submit>
    return `text/${el.localName}/${el.localName === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : ''}`;
  };

  /** Up one level through shadow roots (to the host) and frames (to the frame element). */
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) ||
    (n.parentNode && n.parentNode.nodeType === 9 && n.parentNode.defaultView && n.parentNode.defaultView.frameElement) || null;

  function closestUp(el, selector) {
    for (let n = el; n; n = up(n)) if (n.matches && n.matches(selector)) return n;
    return null;
  }

  const HEADING = 'h1, h2, h3, h4, h5, h6, legend, [role=heading]';
  const HEADING_TAG = /^(h[1-6]|legend)$/;
  const isHeading = (el) => HEADING_TAG.test(el.localName) || el.getAttribute('role') === 'heading';

  /** The nearest heading or legend before `el` within its ancestors (a few levels up), or ''. */
  function headingOf(el, depth = 0) {
    if (!el || depth >= 8) return '';
    let seen = 0;   // the nearest siblings only: a heading far above is not this element's
    for (let s = el.previousElementSibling; s && seen < 12; s = s.previousElementSibling, seen++) {
      // the sibling, or a heading as its first or last child (`<header><h2>…</h2></header>`)
      for (const h of [s, s.lastElementChild, s.firstElementChild]) {
        if (h && isHeading(h)) return clip(norm(h.textContent), 80);
      }
    }
    const parent = up(el);   // shared by the controls of a form: asked once per rank
    return parent ? remember('heading', parent, () => headingOf(parent, depth + 1)) : '';
  }


  const path = (href) => { try { return new URL(href, location.href).pathname; } catch (e) { return ''; } };

  /** The kinds of the controls a form holds, sorted (`button text text select`): its shape. */
  function formShape(form) {
    const kinds = controlsOf(form).map(kindOf).filter((k) => k !== 'hidden' && !k.startsWith('other'));
    return kinds.sort();
  }

  /** Memos while one `rank` runs (every candidate asks the same questions of its form and tree). */
  let memo = null;
  const remember = (what, key, make) => {
    if (!memo) return make();
    let table = memo.get(what);
    if (!table) { table = new Map(); memo.set(what, table); }
    if (!table.has(key)) table.set(key, make());
    return table.get(key);
  };
  /** The controls under a form or document. */
  const controlsOf = (scope) => remember('controls', scope, () => [...scope.querySelectorAll(CANDIDATES)]);
  /** Those of one kind. */
  const ofKind = (scope, kind) => remember('kind:' + kind, scope, () => controlsOf(scope).filter((c) => kindOf(c) === kind));
  /** The <label for=…> of a tree, by id. */
  const labelsById = (root) => remember('labels', root, () => {
    const out = new Map();
    for (const label of root.querySelectorAll('label[for]')) {
      const list = out.get(label.htmlFor);
      if (list) list.push(label); else out.set(label.htmlFor, [label]);
    }
    return out;
  });

  /** The form (or a dialog) an element belongs to, through shadow roots and frames: its identity and shape. */
  function formOf(el) {
    const form = (el.form) || closestUp(el, 'form, [role=form], dialog, [role=dialog]');
    if (!form) return null;
    return remember('form', form, () => describeForm(form));
  }

  function describeForm(form) {
    const id = form.id && window.__bpGen && window.__bpGen.stableId(form.id) ? form.id : '';
    const label = norm(form.getAttribute('aria-label') || '') ||
      norm((form.querySelector(HEADING) || {}).textContent || '') || headingOf(form);
    return { tag: form.localName, id, name: form.getAttribute('name') || '', action: form.getAttribute('action') ? path(form.getAttribute('action')) : '',
      label: clip(label, 80), shape: formShape(form), el: form };
  }

  /** An element's own text, never what was typed or chosen in it or in the controls it holds (a value may be a
   *  secret): the controls, editable regions, scripts and styles are left out. */
  function plainText(el) {
    const copy = el.cloneNode(true);
    for (const c of copy.querySelectorAll('input, select, textarea, [contenteditable], script, style, template')) c.remove();
    if (copy.matches && copy.matches('[contenteditable]')) return '';
    return norm(copy.textContent);
  }

  /** The text around the element: its container's text (never a field's value), clipped. */
  function nearOf(el) {
    const box = el.parentElement && el.parentElement.localName === 'label' ? el.parentElement.parentElement : el.parentElement;
    if (!box) return '';
    return clip(plainText(box), 120);
  }

  /** The text of the element's labels, without the controls a wrapping label holds (a select's options). */
  function labelText(el) {
    let labels;
    if (memo) {   // el.labels scans the whole tree on every call
      labels = (el.id && labelsById(el.getRootNode()).get(el.id)) || [];
      const wrapping = el.parentElement && el.parentElement.closest('label');
      if (wrapping && !wrapping.hasAttribute('for')) labels = [...labels, wrapping];
    } else {
      labels = el.labels ? [...el.labels] : [];
    }
    return clip(norm(labels.map((l) => {
      const copy = l.cloneNode(true);
      for (const c of copy.querySelectorAll('input, select, textarea, button')) c.remove();
      return copy.textContent;
    }).join(' ')), 80);
  }

  /** The fingerprint of an element (see the top of this file). */
  function fingerprint(el) {
    const kind = kindOf(el);
    const attrs = {};
    const nameAttr = el.getAttribute('name');
    if (nameAttr) attrs.name = nameAttr;
    if (el.id && window.__bpGen && window.__bpGen.stableId(el.id)) attrs.id = el.id;
    for (const a of TESTIDS) { const v = el.getAttribute(a); if (v) { attrs.testid = v; break; } }
    for (const a of ['autocomplete', 'aria-label', 'title', 'alt', 'inputmode']) {
      const v = el.getAttribute(a); if (v) attrs[a] = clip(v, 80);
    }
    if (el.localName === 'a' && el.getAttribute('href')) attrs.href = path(el.getAttribute('href'));
    if (kind === 'radio' || kind === 'check') { const v = el.getAttribute('value'); if (v) attrs.value = v; }
    const fp = { v: 1, kind, tag: el.localName };
    if (el.localName === 'input') fp.type = (el.getAttribute('type') || 'text').toLowerCase();
    const role = E.role(el); if (role) fp.role = role;
    const name = clip(norm(E.name(el)), 80); if (name) fp.name = name;
    const label = labelText(el); if (label) fp.label = label;
    const placeholder = el.getAttribute('placeholder'); if (placeholder) fp.placeholder = clip(norm(placeholder), 80);
    if (kind !== 'text' && !['input', 'select', 'textarea'].includes(el.localName)) {
      const t = clip(plainText(el), 80); if (t) fp.text = t;
    }
    if (Object.keys(attrs).length) fp.attrs = attrs;
    const form = formOf(el);
    const scope = form ? form.el : el.ownerDocument;
    if (form) fp.form = remember('formOut', form.el, () => { const { el: _, ...rest } = form; return rest; });
    const heading = headingOf(el); if (heading) fp.heading = heading;
    const same = ofKind(scope, kind);
    fp.index = Math.max(0, same.indexOf(el));
    fp.of = same.length;
    fp.sort = sortOf(el);
    const sorts = remember('sorts:' + kind, scope, () => same.reduce((m, c) => m.set(sortOf(c), (m.get(sortOf(c)) || 0) + 1), new Map()));
    fp.sole = sorts.get(fp.sort) === 1;   // the only one of its sort in its form
    const near = nearOf(el); if (near) fp.near = near;
    return fp;
  }

  // ---- similarity --------------------------------------------------------------------------------------
  const tokens = (s) => (norm(s).toLowerCase().match(/[\p{L}\p{N}]+/gu) || []).flatMap((t) =>
    /[\u3400-\u9fff]/.test(t) ? [...t] : [t]);
  const grams = (s) => {
    const t = ' ' + norm(s).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '') + ' ';
    const out = new Set();
    for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
    return out;
  };
  const dice = (a, b) => {
    if (!a.size && !b.size) return 0;
    let both = 0; for (const x of a) if (b.has(x)) both++;
    return (2 * both) / (a.size + b.size);
  };
  /** 0..1: how alike two short texts are (words and letter trigrams; stems count a little). */
  function textSim(a, b) {
    a = norm(a); b = norm(b);
    if (!a || !b) return 0;
    if (a.toLowerCase() === b.toLowerCase()) return 1;
    const ta = new Set(tokens(a)), tb = new Set(tokens(b));
    const stem = (s) => new Set([...s].map((w) => w.slice(0, 4)));
    return Math.max(dice(ta, tb), 0.9 * dice(stem(ta), stem(tb)), 0.8 * dice(grams(a), grams(b)));
  }
  /** 0..1: how alike two lists of kinds are (multiset Jaccard). */
  function shapeSim(a, b) {
    const count = (list) => list.reduce((m, k) => m.set(k, (m.get(k) || 0) + 1), new Map());
    const ca = count(a), cb = count(b);
    let inter = 0, union = 0;
    for (const k of new Set([...ca.keys(), ...cb.keys()])) {
      inter += Math.min(ca.get(k) || 0, cb.get(k) || 0);
      union += Math.max(ca.get(k) || 0, cb.get(k) || 0);
    }
    return union ? inter / union : 1;
  }
  function formSim(a, b) {
    if (!a && !b) return 1;
    if (!a || !b) return 0.3;
    let sum = 0, weight = 0;
    const add = (w, s) => { sum += w * s; weight += w; };
    add(3, shapeSim(a.shape || [], b.shape || []));
    if (a.id) add(1, a.id === b.id ? 1 : 0);
    if (a.name) add(1, a.name === b.name ? 1 : 0);
    if (a.action) add(1.5, a.action === b.action ? 1 : 0);
    if (a.label) add(1, textSim(a.label, b.label));
    return sum / weight;
  }

  /** {score, why, form}: how well a candidate's fingerprint `c` fits the recorded `fp`. */
  function score(fp, c) {
    let sum = 0, weight = 0;
    const why = [];
    const add = (what, w, s) => {
      sum += w * s; weight += w;
      if (s >= 0.5 && w >= 1) why.push(s >= 0.99 ? what : `${what} ~${s.toFixed(2)}`);
    };
    const fa = fp.attrs || {}, ca = c.attrs || {};
    if (fa.testid) add('test id', 4, fa.testid === ca.testid ? 1 : 0);
    if (fa.id) add('id', ca.id ? 2 : 1, fa.id === ca.id ? 1 : 0);   // ids regenerated everywhere weigh less
    if (fa.name) add('name attribute', 2, fa.name === ca.name ? 1 : ca.name ? 0.6 * textSim(fa.name, ca.name) : 0);
    if (fa.autocomplete) {   // another autocomplete says it is another field
      if (ca.autocomplete && ca.autocomplete !== fa.autocomplete) add('autocomplete', 4, 0);
      else add('autocomplete', 2, fa.autocomplete === ca.autocomplete ? 1 : 0);
    }
    if (fa.href) add('link path', 4, fa.href === ca.href ? 1 : 0);   // where a link leads is what it is
    if (fa.value) add('value', 2, fa.value === ca.value ? 1 : 0);
    if (fp.name) add('name', 3, Math.max(textSim(fp.name, c.name), textSim(fp.name, c.text || '') * 0.9));
    if (fp.label) add('label', 1.5, textSim(fp.label, c.label || c.name || ''));
    if (fp.placeholder) add('placeholder', 1.5, textSim(fp.placeholder, c.placeholder || ''));
    if (fp.text && fp.text !== fp.name) add('text', 1.5, textSim(fp.text, c.text || ''));
    if (fp.type) add('type', 1, fp.type === c.type ? 1 : 0);
    if (fp.tag) add("tag", 2, fp.tag === c.tag ? 1 : 0);
    const full = fp.index !== undefined;   // a fingerprint we took (one from a Chrome recording knows less)
    const form = full ? remember('formSim', c.form || 'none', () => formSim(fp.form, c.form)) : 1;
    if (full) add('form', 3, form);
    if (fp.heading) add('heading', 1, textSim(fp.heading, c.heading || ''));
    if (fp.near) add('neighbours', 1, textSim(fp.near, c.near || ''));
    const sole = !!(fp.sole && c.sole && fp.sort === c.sort);
    if (fp.sole) add('the only one of its sort in its form', 4, sole ? 1 : 0);
    if (fp.of) add('position', 1, fp.index === c.index ? (fp.of === c.of ? 1 : 0.7) : Math.max(0, 0.5 - 0.25 * Math.abs(fp.index - c.index)));
    return { score: weight ? sum / weight : 0, why, form, sole, refused: full && anotherForm(fp, c.form) };
  }

  /** Visible, or for a checkbox / radio / file input styled away, its label is. */
  function usable(el, kind) {
    if (E.visible(el)) return true;
    if (kind === 'check' || kind === 'radio' || kind === 'file') return [...(el.labels || [])].some((l) => E.visible(l));
    return false;
  }

  /** Every candidate of the fingerprint's kind, scored, best first: [{el, score, why, form}]. */
  function rank(fp) {
    const out = [];
    memo = new Map();
    try {
      bp.batch(() => {
        for (const el of bp.elements({ selector: CANDIDATES })) {
          if (kindOf(el) !== fp.kind || !usable(el, fp.kind)) continue;
          out.push({ el, ...score(fp, fingerprint(el)) });
        }
      });
    } finally {
      memo = null;
    }
    return out.sort((a, b) => b.score - a.score);
  }

  /**
   * Whether a candidate in form `c` is in *another form* than the recorded element (form `a`): a different form
   * with its own submit target. Losing or gaining a wrapping form is not that (a redesign moves a sidebar out of
   * its search form); two forms that both name where they post are the same exactly when they post to the same
   * place, whatever else changed in them; otherwise (a form without an action, a dialog) they must look alike.
   */
  function anotherForm(fp, c) {
    const a = fp.form;
    if (!a || !c) return false;
    if (a.tag === 'form' && c.tag === 'form' && a.action && c.action) return a.action !== c.action;
    return formSim(a, c) < FORM_MIN;
  }

  /** Why the one element a locator found cannot be the recorded one (another kind, another form), or null. */
  function refusal(fp, el) {
    const kind = kindOf(el);
    if (kind !== fp.kind) return `it is a ${kind.replace('other:', '')}, not a ${fp.kind}`;
    if (anotherForm(fp, formOf(el))) return 'it is in another form';
    return null;
  }

  /**
   * What acting on an element does, when two elements can be told to do exactly the same: a link's address
   * (without its fragment; not a `#` or `javascript:` link, which scripts handle), or a form control's form and
   * name (with its value for buttons, radios and checkboxes). Buttons must be of the same form element; fields
   * of forms that post to the same place with the same name are the same field of duplicated forms. Null:
   * nothing says so.
   */
  function effectOf(el) {
    const kind = kindOf(el);
    if (el.localName === 'a' && el.hasAttribute('href')) {
      const raw = (el.getAttribute('href') || '').trim();
      if (!raw || raw.startsWith('#') || /^javascript:/i.test(raw)) return null;
      try { const u = new URL(raw, el.baseURI); u.hash = ''; return { key: 'href ' + u.href }; } catch (e) { return null; }
    }
    const form = el.form || null;
    if (!form) return null;
    const name = el.getAttribute('name') || '';
    if (kind === 'button') {
      return { key: `submit ${name} ${name ? (el.getAttribute('value') || '') : ''} ${(el.getAttribute('formaction') || '')}`,
               form };
    }
    if (!name) return null;
    const value = kind === 'radio' || kind === 'check' ? ' ' + (el.getAttribute('value') || '') : '';
    let action = '';
    try { action = new URL(form.getAttribute('action') || '', form.baseURI).href; } catch (e) { return null; }
    return { key: `field ${kind} ${(form.getAttribute('method') || 'get').toLowerCase()} ${action} ${name}${value}` };
  }

  /** Whether acting on `a` and on `b` would do exactly the same (see effectOf). */
  function sameEffect(a, b) {
    if (kindOf(a) !== kindOf(b)) return false;
    const ea = effectOf(a), eb = effectOf(b);
    return !!(ea && eb && ea.key === eb.key && (!ea.form || ea.form === eb.form));
  }

  /** The first in document order (through frames and shadow roots: by where their trees sit in the page). */
  function firstInPage(els) {
    const anchor = (el) => { const chain = []; for (let n = el; n; n = up(n)) chain.unshift(n); return chain; };
    const before = (a, b) => {
      const ca = anchor(a), cb = anchor(b);
      let i = 0;
      while (i < ca.length && i < cb.length && ca[i] === cb[i]) i++;
      if (i >= ca.length || i >= cb.length) return ca.length < cb.length;
      const x = ca[i], y = cb[i];
      if (x.getRootNode() !== y.getRootNode()) return false;
      return !!(x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING);
    };
    return els.reduce((first, el) => (before(el, first) ? el : first));
  }

  const round = (x) => Math.round(x * 100) / 100;

  /**
   * One poll of replay. `locators`: [{selector?|xpath?}], tried in order, each must match exactly one element.
   * Returns {status: 'found', index} for the first that does; else, with a fingerprint, {status: 'healed', ref,
   * desc, score, margin, why, locator, fingerprint} when the best candidate clears the threshold and the margin,
   * or {status: 'none' | 'unsure', candidates: [{desc, score, why}], counts}. `counts[i]` is how many elements
   * locator i matched (-1: invalid).
   */
  function find(locators, fp, opts = {}) {
    const counts = [], rejected = [];
    for (let i = 0; i < locators.length; i++) {
      let n;
      try { n = bp.elements(locators[i]).length; } catch (e) { n = -1; }
      counts.push(n);
      if (n !== 1) continue;
      const refused = fp && fp.kind ? refusal(fp, bp.elements(locators[i])[0]) : null;
      if (!refused) return { status: 'found', index: i, counts };
      counts[i] = 0;
      rejected.push({ index: i, desc: E.describe(bp.elements(locators[i])[0]), why: refused });
    }
    if (!fp || !fp.kind || opts.locatorsOnly) return { status: 'none', counts, candidates: [], rejected };
    const threshold = opts.threshold ?? THRESHOLD, margin = opts.margin ?? MARGIN;
    const ranked = rank(fp);
    const report = (r) => ({ desc: E.describe(r.el), score: round(r.score), why: r.refused ? ['another form'] : r.why });
    const eligible = ranked.filter((r) => !r.refused);
    let best = eligible[0];
    const candidates = ranked.slice(0, 5).map(report);
    // Candidates that would do exactly what the best does (the same address, the same form's button) are one
    // choice, not a tie: the runner-up is the best of the others, and the first of them in the page acts.
    const twins = best ? eligible.filter((r) => r !== best && sameEffect(best.el, r.el)) : [];
    const second = eligible.find((r) => r !== best && !twins.includes(r));
    // The only element of its sort in a form like the recorded one needs less: it has no look-alike to beat.
    const alone = best && best.sole && best.form >= 0.7 && (!second || second.score < best.score - 2 * margin);
    if (!best || best.score < (alone ? SOLE_THRESHOLD : threshold)) return { status: 'none', counts, candidates, rejected };
    const lead = best.score - (second ? second.score : 0);
    if (lead < margin) return { status: 'unsure', counts, candidates, rejected };
    const why = best.why.slice();
    if (twins.length) {
      const first = firstInPage([best.el, ...twins.map((r) => r.el)]);
      best = [best, ...twins].find((r) => r.el === first);
      why.push(`the first of ${twins.length + 1} that do the same`);
    }
    const { unique, ...locator } = window.__bpGen.locatorFor(best.el);
    return { status: 'healed', counts, ref: E.ref(best.el), desc: E.describe(best.el), score: round(best.score),
      margin: round(lead), why: why.join(', '), locator, candidates, rejected };
  }

  window.__bpHeal = Object.freeze({ fingerprint, kindOf, find, rank });
})();
