/*
 * locator.js: BrowserPilot's page helper. Injected at document creation into every frame, in an isolated
 * world (QWebEngineScript.ApplicationWorld), so page scripts can neither see nor change it. It defines one
 * global, `__bp`, which Python (app/browser/locators.py) calls through `run_js(page, "__bp.fn(...)")` in the
 * top frame; every function is synchronous and returns a JSON-compatible object.
 *
 * Locators: `{selector}`, `{xpath}` or `{ref}`.
 *   selector  CSS by default, or an engine:
 *     text=Sign in            visible text, case-insensitive substring after whitespace normalisation;
 *     text="Sign in"          exact (case-sensitive, whitespace normalised); "…"i exact case-insensitive;
 *     text=/sign\s+in/i       a regular expression. The smallest element holding the text matches.
 *     role=button[name="Place order"]   implicit or explicit ARIA role; name matched like text= (a quoted
 *                             name is a case-insensitive substring, "…"s exact, "…"i exact ignoring case,
 *                             /re/ a regex). Also [level=2] [checked] [checked=false|mixed] [disabled]
 *                             [expanded] [pressed] [selected] [include-hidden]. Elements hidden from
 *                             the accessibility tree are skipped unless [include-hidden].
 *     label=Full name         form controls (and elements with aria-label/aria-labelledby) by label text,
 *                             matched like text= (quoted: exact)
 *     placeholder=Search      elements by placeholder text, matched like text=
 *     testid=submit           exact data-testid, data-test, data-qa or data-cy
 *     css=… / xpath=…         explicit engines; a selector starting with // is XPath
 *     A >> B                  B searched inside the matches of A; `>> nth=0` (-1 is the last) picks one
 *                             match; `>> visible=true` keeps visible matches.
 *   xpath     evaluated in the top document; if nothing matches there, in same-origin frames' documents.
 *   ref       `e12` from a snapshot (or a query row). An element keeps its ref while its document lives
 *             (later snapshots reuse it); a new document starts again at e1, and old refs are then stale.
 * CSS and the role/label/placeholder/testid engines search every open shadow root (a selector matches
 * within one tree; combinators do not cross shadow boundaries); text= follows the composed (rendered) tree
 * and ignores script, style, select and textarea contents. Closed shadow roots are out of reach.
 * All engines search same-origin iframes, recursively; rects are in CSS px of the top-level viewport.
 * Another site's frame has a helper of its own (app/browser/frames.py asks each one): a chain whose part
 * matches such a frame (`iframe[name="pay"] >> input`) reports the rest of the chain and the frame's index path
 * (`window.frames` indexes from this window) as a `hops` entry of the answer, for the caller to follow.
 *
 * Actionability (`actionable`) is one synchronous check per call; Python polls it. Stability needs two
 * samples of the element's box with an animation frame between them: the first call records a sample and
 * asks for a frame (requestAnimationFrame), a later call compares.
 *
 * Errors that are the caller's (bad selector, stale ref) come back as `{error: kind, message}`; Python
 * turns them and the statuses of `actionable` into messages.
 */
(() => {
  'use strict';
  if (window.__bp) return;

  const VERSION = 1;
  const state = {
    nextRef: 1,                 // refs are e1, e2, … for this document's lifetime
    refs: new Map(),            // ref -> WeakRef(element)
    refOf: new WeakMap(),       // element -> ref
    generation: 0,              // number of snapshots taken of this document
    frame: 0,                   // animation frames seen since we last asked for one
    rafPending: false,
    samples: new WeakMap(),     // element -> {box, frame, t}: the stability check's last sample
  };

  class LocatorFailure extends Error {
    constructor(kind, message) { super(message); this.kind = kind; }
  }
  const invalid = (selector, why) => new LocatorFailure('invalid', `invalid selector ${JSON.stringify(selector)}: ${why}`);

  // ---- text helpers ----------------------------------------------------------------------------------
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const squash = (s) => s.replace(/\s+/g, '').toLowerCase();
  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const NO_TEXT = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'iframe', 'frame', 'object']);
  const BLOCK = new Set(('address article aside blockquote br dd details dialog div dl dt fieldset figcaption figure ' +
    'footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody td tfoot th thead ' +
    'tr ul option legend label').split(' '));
  const BUTTON_INPUT = new Set(['button', 'submit', 'reset', 'image']);
  const TEXT_INPUT = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date',
    'datetime-local', 'month', 'week', 'time']);

  /** Call `fn` on each child node in the composed (rendered) tree: a host shows its shadow root, a slot
   * its assigned nodes. (firstChild/nextSibling is several times faster than iterating childNodes.) */
  function eachChild(n, fn) {
    const shadow = n.shadowRoot;
    if (shadow) { for (let c = shadow.firstChild; c; c = c.nextSibling) fn(c); return; }
    if (n.localName === 'slot' && n.assignedNodes) {
      const assigned = n.assignedNodes();
      if (assigned.length) { for (let i = 0; i < assigned.length; i++) fn(assigned[i]); return; }
    }
    for (let c = n.firstChild; c; c = c.nextSibling) fn(c);
  }

  /** Per-call memo (scopes of a root, labels of a tree), reset by `api` at every entry point. */
  let cx = null;
  const newContext = () => ({ scopes: new Map(), labels: new Map() });

  /** The <label>s of a form control, without `el.labels` (which scans the whole tree on every call). */
  function labelsOf(el) {
    const root = el.getRootNode();
    let byFor = cx.labels.get(root);
    if (!byFor) {
      byFor = new Map();
      for (const label of root.querySelectorAll('label[for]')) {
        const list = byFor.get(label.htmlFor);
        if (list) list.push(label); else byFor.set(label.htmlFor, [label]);
      }
      cx.labels.set(root, byFor);
    }
    const out = (el.id && byFor.get(el.id)) ? byFor.get(el.id).filter((l) => l.control === el) : [];
    const wrapping = el.parentElement && el.parentElement.closest('label');
    if (wrapping && !wrapping.hasAttribute('for') && wrapping.control === el) out.push(wrapping);
    return out;
  }
  const LABELABLE_TAGS = new Set(['input', 'select', 'textarea', 'button', 'meter', 'output', 'progress']);

  /** Whether an element generates boxes: display:none (self or ancestor) and content-visibility say no;
   * display:contents elements have no box of their own but their children may. */
  function rendered(el) {
    if (el.checkVisibility()) return true;
    return styleOf(el).display === 'contents';
  }
  const styleOf = (el) => el.ownerDocument.defaultView.getComputedStyle(el);

  /** Text of an element for names and labels: skips hidden parts, uses alt and aria-label of children,
   * values of embedded controls unless `skipControls`. Bounded to `budget` characters. */
  function contentText(el, { skipControls = false, checkVisible = true, budget = 300 } = {}) {
    let out = '';
    const walk = (n, isRoot) => {
      if (out.length > budget) return;
      if (n.nodeType === 3) { out += n.data; return; }
      if (n.nodeType !== 1) return;
      const tag = n.localName;
      if (NO_TEXT.has(tag)) return;
      if (!isRoot) {
        if (n.hidden || n.getAttribute('aria-hidden') === 'true') return;
        if (checkVisible && !rendered(n)) return;
        const label = n.getAttribute('aria-label');
        if (label && label.trim()) { out += ` ${label} `; return; }
      }
      if (tag === 'img' || tag === 'area') { out += ` ${n.getAttribute('alt') || ''} `; return; }
      if (tag === 'input') {
        if (BUTTON_INPUT.has(n.type)) out += ` ${n.value} `;
        else if (!skipControls && TEXT_INPUT.has(n.type)) out += ` ${n.value} `;
        return;
      }
      if (tag === 'select') {
        if (!skipControls) out += ` ${[...n.selectedOptions].map((o) => o.text).join(' ')} `;
        return;
      }
      if (tag === 'textarea') { if (!skipControls) out += ` ${n.value} `; return; }
      const block = BLOCK.has(tag);
      if (block) out += ' ';
      eachChild(n, (c) => walk(c, false));
      if (block) out += ' ';
    };
    walk(el, true);
    return norm(out);
  }

  // ---- matching values (text=, name=, label=, placeholder=) ---------------------------------------------
  /** Read a quoted string at the start of `s`; returns [value, rest]. */
  function readQuoted(s, selector) {
    const q = s[0];
    let value = '';
    for (let i = 1; i < s.length; i++) {
      const c = s[i];
      if (c === '\\' && i + 1 < s.length) { value += s[++i]; continue; }
      if (c === q) return [value, s.slice(i + 1)];
      value += c;
    }
    throw invalid(selector, 'unterminated quote');
  }

  /** Parse `Sign in`, `"Sign in"`, `"Sign in"i`, `"Sign in"s` or `/re/flags` into a test on normalised text.
   * `quotedDefault`: what a quoted value without a flag means ('exact' for text=, 'substring' for role names).
   * The test's `prune(t)` says whether an element with text `t` may contain a match (its descendants' text
   * is part of its own), so the text engine can skip subtrees. */
  function textMatcher(raw, selector, quotedDefault = 'exact') {
    const body = raw.trim();
    // `squashed`: the needle lowercased without whitespace, for a quick native pre-check (null: a regex).
    const make = (test, prune, squashed) => Object.assign(test, { prune: prune || test, squashed: squashed ?? null });
    const re = /^\/(.+)\/([dimsuy]*)$/s.exec(body);
    if (re) {
      let regex;
      try { regex = new RegExp(re[1], re[2]); } catch (e) { throw invalid(selector, e.message); }
      return make((t) => regex.test(t), () => true, null);
    }
    if (body[0] === '"' || body[0] === "'") {
      const [value, rest] = readQuoted(body, selector);
      const flag = rest.trim();
      const wanted = norm(value);
      const low = wanted.toLowerCase();
      const squashed = squash(wanted);
      if (flag === 's' || (flag === '' && quotedDefault === 'exact')) return make((t) => t === wanted, (t) => t.includes(wanted), squashed);
      if (flag === 'i') return make((t) => t.toLowerCase() === low, (t) => t.toLowerCase().includes(low), squashed);
      if (flag === '') return make((t) => t.toLowerCase().includes(low), null, squashed);
      throw invalid(selector, `unknown flag ${JSON.stringify(flag)} after the quoted text (use i or s)`);
    }
    const low = norm(body).toLowerCase();
    if (!low) throw invalid(selector, 'empty text');
    return make((t) => t.toLowerCase().includes(low), null, squash(low));
  }

  // ---- roles and accessible names -------------------------------------------------------------------
  const SECTIONING = 'article, aside, main, nav, section';
  function inputRole(el) {
    const type = el.type;
    if (BUTTON_INPUT.has(type) || type === 'file' || type === 'color') return 'button';
    if (type === 'checkbox') return 'checkbox';
    if (type === 'radio') return 'radio';
    if (type === 'range') return 'slider';
    if (type === 'number') return 'spinbutton';
    if (type === 'hidden') return '';
    if (el.hasAttribute('list')) return 'combobox';
    if (type === 'search') return 'searchbox';
    return 'textbox';
  }
  const IMPLICIT = {
    a: (el) => (el.hasAttribute('href') ? 'link' : ''), area: (el) => (el.hasAttribute('href') ? 'link' : ''),
    button: () => 'button', input: inputRole, textarea: () => 'textbox', summary: () => 'button',
    select: (el) => (el.multiple || el.size > 1 ? 'listbox' : 'combobox'), datalist: () => 'listbox',
    option: () => 'option', optgroup: () => 'group', fieldset: () => 'group', details: () => 'group',
    h1: () => 'heading', h2: () => 'heading', h3: () => 'heading', h4: () => 'heading', h5: () => 'heading', h6: () => 'heading',
    img: (el) => (el.getAttribute('alt') === '' && !el.title ? 'presentation' : 'img'),
    ul: () => 'list', ol: () => 'list', menu: () => 'list', li: () => 'listitem',
    nav: () => 'navigation', main: () => 'main', aside: () => 'complementary', search: () => 'search',
    header: (el) => (el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'banner'),
    footer: (el) => (el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'contentinfo'),
    form: () => 'form', dialog: () => 'dialog', article: () => 'article',
    section: (el) => (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : ''),
    table: () => 'table', tr: () => 'row', td: () => 'cell', thead: () => 'rowgroup', tbody: () => 'rowgroup',
    tfoot: () => 'rowgroup', th: (el) => (el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader'),
    progress: () => 'progressbar', meter: () => 'meter', output: () => 'status', hr: () => 'separator',
    figure: () => 'figure', p: () => 'paragraph', blockquote: () => 'blockquote', dt: () => 'term',
    dd: () => 'definition',
  };
  /** Tags that can have each implicit role: a CSS prefilter for role= (plus [role] for explicit roles). */
  const ROLE_TAGS = {
    button: 'button, input, summary', link: 'a[href], area[href]', textbox: 'input, textarea, [contenteditable]',
    searchbox: 'input', combobox: 'input, select', listbox: 'select, datalist', checkbox: 'input', radio: 'input',
    slider: 'input', spinbutton: 'input', heading: 'h1, h2, h3, h4, h5, h6', img: 'img', presentation: 'img',
    list: 'ul, ol, menu', listitem: 'li', navigation: 'nav', main: 'main', complementary: 'aside', banner: 'header',
    contentinfo: 'footer', form: 'form', region: 'section', search: 'search', dialog: 'dialog', article: 'article',
    table: 'table', row: 'tr', cell: 'td', columnheader: 'th', rowheader: 'th', rowgroup: 'thead, tbody, tfoot',
    group: 'fieldset, details, optgroup', option: 'option', progressbar: 'progress', meter: 'meter',
    status: 'output', separator: 'hr', figure: 'figure', paragraph: 'p', blockquote: 'blockquote', term: 'dt',
    definition: 'dd',
  };

  function roleOf(el) {
    const explicit = el.getAttribute('role');
    if (explicit) {
      const first = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (first && first !== 'none' && first !== 'presentation') return first;
      if (first) return '';
    }
    const implicit = IMPLICIT[el.localName];
    if (implicit) return implicit(el);
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
    return '';
  }

  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'cell', 'columnheader', 'rowheader', 'row', 'tooltip',
    'treeitem', 'gridcell']);

  function byIds(el, ids) {
    const root = el.getRootNode();
    return ids.trim().split(/\s+/).map((id) => (root.getElementById ? root.getElementById(id) : null) ||
      el.ownerDocument.getElementById(id)).filter(Boolean);
  }

  /** A pragmatic accessible name (accname-1.2 order, simplified). */
  function accName(el, role) {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = norm(byIds(el, labelledBy).map((e) => contentText(e, { checkVisible: false })).join(' '));
      if (text) return text;
    }
    const ariaLabel = el.getAttribute('aria-label');
    if (ariaLabel && ariaLabel.trim()) return norm(ariaLabel);
    const tag = el.localName;
    if (tag === 'input' && BUTTON_INPUT.has(el.type)) {
      const v = el.type === 'image' ? el.getAttribute('alt') || el.value : el.value;
      if (v && v.trim()) return norm(v);
      if (el.type === 'submit' || el.type === 'image') return 'Submit';
      if (el.type === 'reset') return 'Reset';
    }
    const labels = LABELABLE_TAGS.has(tag) ? labelsOf(el) : [];
    if (labels.length) {
      const text = norm(labels.map((l) => contentText(l, { skipControls: true })).join(' '));
      if (text) return text;
    }
    if (tag === 'img' || tag === 'area') { const alt = el.getAttribute('alt'); if (alt && alt.trim()) return norm(alt); }
    if (tag === 'fieldset') { const lg = el.querySelector(':scope > legend'); if (lg) return contentText(lg); }
    if (tag === 'table') { const cap = el.querySelector(':scope > caption'); if (cap) return contentText(cap); }
    if (tag === 'figure') { const fc = el.querySelector(':scope > figcaption'); if (fc) return contentText(fc); }
    if (NAME_FROM_CONTENT.has(role) || tag === 'summary') {
      const text = contentText(el);
      if (text) return text;
    }
    const title = el.getAttribute('title');
    if (title && title.trim()) return norm(title);
    const placeholder = el.getAttribute('placeholder');
    if (placeholder && placeholder.trim()) return norm(placeholder);
    return '';
  }

  /** Hidden from the accessibility tree: not rendered, visibility:hidden, or inside aria-hidden="true". */
  function ariaHidden(el) {
    if (!el.checkVisibility({ visibilityProperty: true }) && styleOf(el).display !== 'contents') return true;
    return !!el.closest('[aria-hidden="true"]');
  }

  function ariaState(el, name) {
    const attr = el.getAttribute('aria-' + name);
    if (name === 'checked') {
      if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
        return el.indeterminate ? 'mixed' : String(el.checked);
      }
      return attr === 'true' || attr === 'false' || attr === 'mixed' ? attr : null;
    }
    if (name === 'disabled') return String(isDisabled(el));
    if (name === 'selected' && el.localName === 'option') return String(el.selected);
    if (name === 'level') {
      const m = /^h([1-6])$/.exec(el.localName);
      return attr || (m ? m[1] : null);
    }
    return attr;
  }

  // ---- selector parsing ------------------------------------------------------------------------------
  const ENGINE = /^(css|xpath|text|role|label|placeholder|testid|nth|visible)\s*=\s*([\s\S]*)$/;

  /** Split `A >> B` outside quotes and brackets. */
  function splitChain(selector) {
    if (!selector.includes('>>')) return [selector.trim()];
    const parts = [];
    let quote = null, depth = 0, start = 0;
    for (let i = 0; i < selector.length; i++) {
      const c = selector[i];
      if (quote) { if (c === '\\') i++; else if (c === quote) quote = null; continue; }
      if (c === '"' || c === "'") quote = c;
      else if (c === '[' || c === '(') depth++;
      else if (c === ']' || c === ')') depth--;
      else if (c === '>' && selector[i + 1] === '>' && depth === 0) {
        parts.push(selector.slice(start, i).trim());
        i++;
        start = i + 1;
      }
    }
    parts.push(selector.slice(start).trim());
    return parts;
  }

  function parsePart(part) {
    const m = ENGINE.exec(part);
    if (m) return { engine: m[1], body: m[2] };
    if (part.startsWith('//') || part.startsWith('..') || part.startsWith('(/')) return { engine: 'xpath', body: part };
    if (/^(["']).*\1[is]?$/s.test(part)) return { engine: 'text', body: part };
    return { engine: 'css', body: part };
  }

  function parseRole(body, selector) {
    const m = /^\s*([A-Za-z-]+)\s*/.exec(body);
    if (!m) throw invalid(selector, 'role= needs a role name, for example role=button[name="Save"]');
    const spec = { role: m[1].toLowerCase(), name: null, attrs: [], includeHidden: false };
    let rest = body.slice(m[0].length);
    while (rest.length) {
      const a = /^\[\s*([A-Za-z-]+)\s*/.exec(rest);
      if (!a) throw invalid(selector, `expected [attribute] after role=${spec.role}`);
      const attr = a[1].toLowerCase();
      rest = rest.slice(a[0].length);
      let value = null;
      if (rest[0] === '=') {
        rest = rest.slice(1).trimStart();
        let end;
        if (rest[0] === '"' || rest[0] === "'") {
          const [, after] = readQuoted(rest, selector);
          const flag = /^\s*[is]?/.exec(after)[0];
          end = rest.length - after.length + flag.length;
        } else if (rest[0] === '/') {
          let i = 1;
          while (i < rest.length && rest[i] !== '/') i += rest[i] === '\\' ? 2 : 1;
          if (i >= rest.length) throw invalid(selector, 'unterminated regular expression');
          i++;
          while (i < rest.length && 'dimsuy'.includes(rest[i])) i++;
          end = i;
        } else {
          end = rest.indexOf(']');
          if (end < 0) throw invalid(selector, 'missing ]');
        }
        value = rest.slice(0, end).trim();
        rest = rest.slice(end).trimStart();
      }
      if (rest[0] !== ']') throw invalid(selector, `missing ] after [${attr}`);
      rest = rest.slice(1).trimStart();
      if (attr === 'name') {
        if (value === null) throw invalid(selector, '[name] needs a value');
        spec.name = textMatcher(value, selector, 'substring');
      } else if (attr === 'include-hidden') {
        spec.includeHidden = value === null || value === 'true';
      } else if (['level', 'checked', 'disabled', 'expanded', 'pressed', 'selected'].includes(attr)) {
        let v = value === null ? 'true' : value;
        if (v[0] === '"' || v[0] === "'") v = readQuoted(v, selector)[0];
        spec.attrs.push([attr, v.toLowerCase()]);
      } else {
        throw invalid(selector, `unknown role attribute [${attr}] (use name, level, checked, disabled, expanded, ` +
          'pressed, selected or include-hidden)');
      }
    }
    return spec;
  }

  function unquote(body, selector) {
    const b = body.trim();
    return b[0] === '"' || b[0] === "'" ? readQuoted(b, selector)[0] : b;
  }

  // ---- scopes: the document, open shadow roots, same-origin frames ------------------------------------
  function frameDocument(frame) {
    try { return frame.contentDocument; } catch (e) { return null; }   // cross-origin: null or throws
  }

  /** The index path (`window.frames` indexes) from this window down to a frame element's window, or null. */
  function framePath(frame) {
    const path = [];
    let w = frame.contentWindow;
    while (w && w !== window) {
      const parent = w.parent;
      let k = -1;
      for (let i = 0; i < parent.frames.length; i++) if (parent.frames[i] === w) { k = i; break; }
      if (k < 0 || parent === w) return null;
      path.unshift(k);
      w = parent;
    }
    return w === window ? path : null;
  }

  /** The <iframe>/<frame> element of the frame at `path` from this window (its parent must be readable). */
  function frameAt(path) {
    if (!Array.isArray(path) || !path.length) return null;
    let w = window;
    let doc;
    try {
      for (let i = 0; i < path.length - 1; i++) w = w.frames[path[i]];
      doc = w && w.document;
    } catch (e) { return null; }
    const target = w && w.frames[path[path.length - 1]];
    if (!doc || !target) return null;
    for (const scope of scopesOf(doc)) {
      for (const el of scope.querySelectorAll('iframe, frame')) if (el.contentWindow === target) return el;
    }
    return null;
  }

  /** A chain reaching another site's frame: the rest of it is for that frame's helper (see the header). */
  function hopInto(roots, rest) {
    if (!cx) return;
    for (const root of roots) {
      if (root.nodeType !== 1 || (root.localName !== 'iframe' && root.localName !== 'frame') || frameDocument(root)) continue;
      const path = framePath(root);
      if (!path) continue;
      const hop = { path, rest: rest.join(' >> ') };
      cx.hops = cx.hops || [];
      if (!cx.hops.some((h) => h.rest === hop.rest && h.path.join('.') === hop.path.join('.'))) cx.hops.push(hop);
    }
  }

  /** `root` (a Document or an Element) and every open shadow root and same-origin frame document under it,
   * in tree order. Memoised per call in `cx`. */
  function scopesOf(root) {
    const cached = cx.scopes.get(root);
    if (cached) return cached;
    const out = [root];
    const visit = (el) => {
      if (el.shadowRoot) { out.push(el.shadowRoot); walk(el.shadowRoot); }
      const tag = el.localName;
      if (tag === 'iframe' || tag === 'frame') {
        const doc = frameDocument(el);
        if (doc && doc.documentElement) { out.push(doc); walk(doc); }
      }
    };
    const walk = (scope) => { const all = scope.querySelectorAll('*'); for (let i = 0; i < all.length; i++) visit(all[i]); };
    if (root.nodeType === 1) visit(root);
    walk(root);
    cx.scopes.set(root, out);
    return out;
  }

  /** Anchors from the top document down to `el` (hosts and frame elements), for composed ordering. */
  function anchorChain(el) {
    const chain = [];
    let n = el;
    while (n) {
      chain.push(n);
      const root = n.getRootNode();
      n = root.host || (root.defaultView && root.defaultView.frameElement) || null;
    }
    return chain.reverse();
  }

  function sortComposed(els) {
    const chains = new Map(els.map((e) => [e, anchorChain(e)]));
    return els.sort((a, b) => {
      const ca = chains.get(a), cb = chains.get(b);
      for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
        if (ca[i] === cb[i]) continue;
        const pos = ca[i].compareDocumentPosition(cb[i]);
        if (pos & Node.DOCUMENT_POSITION_CONTAINED_BY) return -1;
        if (pos & Node.DOCUMENT_POSITION_CONTAINS) return 1;
        return pos & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
      }
      return ca.length - cb.length;
    });
  }

  // ---- engines ---------------------------------------------------------------------------------------
  function cssAll(scope, css, selector) {
    try { return scope.querySelectorAll(css); } catch (e) { throw invalid(selector, 'not a valid CSS selector'); }
  }

  /** Run a CSS (pre)selector in every scope under `root`; keep elements passing `keep`. */
  function cssEngine(root, css, selector, keep) {
    const out = [];
    for (const scope of scopesOf(root)) {
      const found = cssAll(scope, css, selector);
      for (let i = 0; i < found.length; i++) if (!keep || keep(found[i])) out.push(found[i]);
    }
    return out;
  }

  function textEngine(root, body, selector) {
    const matches = textMatcher(body, selector, 'exact');
    const cache = new Map();
    const textOf = (el) => {
      let t = cache.get(el);
      if (t !== undefined) return t;
      const tag = el.localName;
      if (NO_TEXT.has(tag) || tag === 'select' || tag === 'textarea') t = '';
      else if (tag === 'input') t = BUTTON_INPUT.has(el.type) ? el.value : '';
      else {
        let acc = '';
        eachChild(el, (c) => {
          const type = c.nodeType;
          if (type === 3) acc += c.data;
          else if (type === 1) acc += textOf(c);
        });
        t = BLOCK.has(tag) ? ` ${acc} ` : acc;
      }
      cache.set(el, t);
      return t;
    };
    // Quick pre-check with the native textContent (a superset of our text, squashed of whitespace), valid
    // in a document without open shadow roots (textContent does not include them) and when no button-like
    // input's value (not in textContent) overlaps the text sought.
    const needle = matches.squashed;
    const scopes = scopesOf(root);
    const nativeOk = (doc) => {
      if (!needle) return false;
      if (scopes.some((sc) => sc.nodeType === 11 && sc.host.ownerDocument === doc)) return false;
      for (const input of doc.querySelectorAll('input[type=button i], input[type=submit i], input[type=reset i], input[type=image i]')) {
        const v = squash(input.value);
        if (v && (v.includes(needle) || needle.includes(v))) return false;
      }
      return true;
    };
    const out = [];
    // Depth-first: an element matches when its text matches and none of its children's does. Subtrees
    // whose text cannot contain a match are skipped, as are display:none ones.
    const visit = (el, native) => {
      if (NO_TEXT.has(el.localName)) return false;
      if (native ? !squash(el.textContent).includes(needle) : !matches.prune(norm(textOf(el)))) return false;
      if (!el.checkVisibility() && styleOf(el).display !== 'contents') return false;
      let childMatched = false;
      eachChild(el, (c) => { if (c.nodeType === 1 && visit(c, native)) childMatched = true; });
      if (childMatched) return true;
      if (!matches(norm(textOf(el)))) return false;
      if (!el.checkVisibility({ visibilityProperty: true }) && styleOf(el).display !== 'contents') return false;
      out.push(el);
      return true;
    };
    for (const scope of scopes) {
      if (scope.nodeType === 9) {
        if (scope.documentElement) visit(scope.documentElement, nativeOk(scope));
      } else if (scope === root) {
        const native = nativeOk(root.ownerDocument);
        eachChild(root, (c) => { if (c.nodeType === 1) visit(c, native); });
      }
      // shadow roots are reached through their hosts (composed tree)
    }
    return out;
  }

  function roleEngine(root, body, selector) {
    const spec = parseRole(body, selector);
    const pre = (ROLE_TAGS[spec.role] ? ROLE_TAGS[spec.role] + ', ' : '') + '[role]';
    return cssEngine(root, pre, selector, (el) => {
      if (roleOf(el) !== spec.role) return false;
      if (!spec.includeHidden && ariaHidden(el)) return false;
      for (const [attr, want] of spec.attrs) {
        const have = ariaState(el, attr);
        if ((have === null ? (attr === 'disabled' ? 'false' : null) : have) !== want) return false;
      }
      return !spec.name || spec.name(accName(el, spec.role));
    });
  }

  const LABELABLE = 'input, select, textarea, button, meter, output, progress, [aria-label], [aria-labelledby]';
  function labelEngine(root, body, selector) {
    const matches = textMatcher(body, selector, 'exact');
    return cssEngine(root, LABELABLE, selector, (el) => {
      if (el.localName === 'input' && el.type === 'hidden') return false;
      const texts = [];
      for (const l of labelsOf(el)) texts.push(contentText(l, { skipControls: true }));
      const al = el.getAttribute('aria-label');
      if (al) texts.push(norm(al));
      const by = el.getAttribute('aria-labelledby');
      if (by) texts.push(norm(byIds(el, by).map((e) => contentText(e, { checkVisible: false })).join(' ')));
      return texts.some((t) => t && matches(t));
    });
  }

  function placeholderEngine(root, body, selector) {
    const matches = textMatcher(body, selector, 'exact');
    return cssEngine(root, '[placeholder]', selector, (el) => matches(norm(el.getAttribute('placeholder'))));
  }

  function testidEngine(root, body, selector) {
    const v = CSS.escape(unquote(body, selector));
    if (!v) throw invalid(selector, 'empty test id');
    return cssEngine(root, `[data-testid="${v}"], [data-test="${v}"], [data-qa="${v}"], [data-cy="${v}"]`, selector);
  }

  function xpathIn(doc, context, xpath, selector) {
    let result;
    try {
      result = doc.evaluate(xpath, context, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    } catch (e) {
      throw new LocatorFailure('invalid', `invalid xpath ${JSON.stringify(selector)}: not a valid XPath expression`);
    }
    const out = [];
    for (let i = 0; i < result.snapshotLength; i++) {
      const n = result.snapshotItem(i);
      const el = n.nodeType === 1 ? n : n.parentElement;
      if (el && !out.includes(el)) out.push(el);
    }
    return out;
  }

  /** XPath in the top document (or under `root` in a chain, where `//a` means `.//a`), then, if nothing
   * matched, in same-origin frame documents. */
  function xpathEngine(root, xpath, selector) {
    const doc = root.nodeType === 9 ? root : root.ownerDocument;
    if (root.nodeType === 1 && xpath.startsWith('/')) xpath = '.' + xpath;
    const found = xpathIn(doc, root, xpath, selector);
    if (found.length) return found;
    const out = [];
    for (const scope of scopesOf(root)) if (scope.nodeType === 9 && scope !== doc) out.push(...xpathIn(scope, scope, xpath, selector));
    return out;
  }

  const ENGINES = { css: (r, b, s) => cssEngine(r, b, s), text: textEngine, role: roleEngine,
    label: labelEngine, placeholder: placeholderEngine, testid: testidEngine, xpath: xpathEngine };

  function resolveSelector(selector) {
    const parts = splitChain(selector);
    let current = null;                               // null: the whole page
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index];
      if (!part) throw invalid(selector, 'empty part');
      const { engine, body } = parsePart(part);
      if (engine === 'nth') {
        if (current === null) throw invalid(selector, 'nth= must follow another selector');
        const n = Number(body.trim());
        if (!Number.isInteger(n)) throw invalid(selector, 'nth= needs an integer');
        const el = n < 0 ? current[current.length + n] : current[n];
        current = el ? [el] : [];
        continue;
      }
      if (engine === 'visible') {
        if (current === null) throw invalid(selector, 'visible= must follow another selector');
        const want = body.trim() !== 'false';
        current = current.filter((el) => isVisible(el) === want);
        continue;
      }
      if (!body.trim()) throw invalid(selector, `empty ${engine}=`);
      const roots = current === null ? [document] : current;
      if (current !== null) hopInto(roots, parts.slice(index));
      const seen = new Set();
      let out = [];
      for (const root of roots) {
        for (const el of ENGINES[engine](root, body.trim(), selector)) {
          if (!seen.has(el)) { seen.add(el); out.push(el); }
        }
      }
      if (out.length > 1 && (roots.length > 1 || out.some((el) => el.getRootNode() !== out[0].getRootNode()))) {
        out = sortComposed(out);
      }
      current = out;
    }
    return current || [];
  }

  function refElement(ref) {
    const weak = state.refs.get(ref);
    const el = weak && weak.deref();
    if (!el || !el.isConnected) {
      throw new LocatorFailure('stale', `ref ${ref} is stale or unknown: take a new page_snapshot`);
    }
    return el;
  }

  /** Whether a ref was handed out in this document (refs are numbered in order). */
  function issued(ref) {
    const m = /^e(\d+)$/.exec(String(ref).trim());
    return !!m && Number(m[1]) < state.nextRef;
  }

  function refFor(el) {
    let ref = state.refOf.get(el);
    if (!ref) {
      ref = 'e' + state.nextRef++;
      state.refOf.set(el, ref);
      state.refs.set(ref, new WeakRef(el));
    }
    return ref;
  }

  /** All elements a locator matches, in composed document order. */
  function resolve(loc) {
    if (loc.ref) return [refElement(String(loc.ref).trim())];
    if (loc.xpath) return xpathEngine(document, loc.xpath, loc.xpath);
    if (loc.selector) return resolveSelector(loc.selector);
    throw new LocatorFailure('invalid', 'a locator needs a selector, an xpath or a ref');
  }

  // ---- describing elements ---------------------------------------------------------------------------
  const KEY_ATTRS = ['id', 'name', 'for', 'type', 'href', 'role', 'aria-label', 'data-testid', 'data-test', 'data-qa',
    'data-cy', 'placeholder', 'alt'];
  const showValue = (v) => {
    const s = clip(v, 60);
    return /^[\w\-/.:#?&=%~+@,]+$/.test(s) ? s : `"${s.replace(/"/g, '\\"')}"`;
  };

  /** `<a href=/p2>Next</a>`, `<button id=go>Go</button>`, `<div class="modal-backdrop">`. */
  function describe(el) {
    const tag = el.localName;
    const parts = [tag];
    let testid = false;
    for (const name of KEY_ATTRS) {
      const v = el.getAttribute(name);
      if (v === null || (v === '' && name !== 'alt')) continue;
      if (name.startsWith('data-')) { if (testid) continue; testid = true; }
      parts.push(`${name}=${showValue(v)}`);
    }
    if (tag === 'input' && BUTTON_INPUT.has(el.type) && el.value) parts.push(`value=${showValue(el.value)}`);
    const text = ['input', 'select', 'textarea', 'img'].includes(tag) ? ''
      : clip(contentText(el, { checkVisible: false, skipControls: true, budget: 60 }), 40);
    const cls = el.getAttribute('class');
    if (!text && !el.id && cls && cls.trim()) parts.push(`class="${clip(cls.trim().split(/\s+/).slice(0, 2).join(' '), 40)}"`);
    return text ? `<${parts.join(' ')}>${text}</${tag}>` : `<${parts.join(' ')}>`;
  }

  // ---- geometry, visibility, actionability -----------------------------------------------------------
  function viewportOf(win) {
    const vv = win.visualViewport;
    return vv ? { w: vv.width, h: vv.height } : { w: win.innerWidth, h: win.innerHeight };
  }
  const intersect = (a, b) => ({ l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) });
  const nonEmpty = (r) => r.r - r.l > 0 && r.b - r.t > 0;

  function frameChain(el) {
    const frames = [];
    let win = el.ownerDocument.defaultView;
    while (win && win.frameElement) { frames.push(win.frameElement); win = win.frameElement.ownerDocument.defaultView; }
    return frames.reverse();
  }

  /** Offset of the frame's viewport in top-level viewport px: the frame element's content box. */
  function contentOrigin(frame) {
    const r = frame.getBoundingClientRect();
    const cs = styleOf(frame);
    return { x: r.left + frame.clientLeft + parseFloat(cs.paddingLeft), y: r.top + frame.clientTop + parseFloat(cs.paddingTop) };
  }

  function contentsRange(el) {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    return range;
  }
  const isContents = (el) => !el.checkVisibility() && styleOf(el).display === 'contents';
  const clientRects = (el) => (isContents(el) ? contentsRange(el) : el).getClientRects();
  const boundingBox = (el) => (isContents(el) ? contentsRange(el) : el).getBoundingClientRect();

  /** The element's box and the visible area (top viewport clipped by every frame), in top-level px. */
  function geometry(el) {
    const top = viewportOf(window);
    let ox = 0, oy = 0;
    let area = { l: 0, t: 0, r: top.w, b: top.h };
    for (const frame of frameChain(el)) {
      const o = contentOrigin(frame);
      ox += o.x; oy += o.y;
      const vp = viewportOf(frame.contentWindow);
      area = intersect(area, { l: ox, t: oy, r: ox + vp.w, b: oy + vp.h });
    }
    const b = boundingBox(el);
    return { ox, oy, area, box: { l: b.left + ox, t: b.top + oy, r: b.right + ox, b: b.bottom + oy } };
  }

  /** Visible: connected, rendered, not visibility:hidden, a non-empty box, and its frames visible. */
  function isVisible(el) {
    if (!el.isConnected) return false;
    if (!el.checkVisibility({ visibilityProperty: true })) {
      if (styleOf(el).display !== 'contents') return false;
      return [...el.children].some(isVisible) || [...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim());
    }
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    const frame = el.ownerDocument.defaultView.frameElement;
    return !frame || isVisible(frame);
  }

  function isDisabled(el) {
    if (el.matches(':disabled')) return true;
    if (el.closest('button:disabled, select:disabled')) return true;   // content inside a disabled control
    const aria = el.closest('[aria-disabled]');
    return !!aria && aria.getAttribute('aria-disabled') === 'true';
  }

  function isEditable(el) {
    if (el.isContentEditable) return true;
    const tag = el.localName;
    if (tag === 'input') return TEXT_INPUT.has(el.type) && !el.readOnly;
    if (tag === 'textarea') return !el.readOnly;
    if (['textbox', 'searchbox', 'spinbutton', 'combobox'].includes(roleOf(el))) return el.getAttribute('aria-readonly') !== 'true';
    return false;
  }

  function needsScroll(g) {
    const { box: b, area: a } = g;
    const axis = (lo, hi, alo, ahi) => (hi - lo <= ahi - alo
      ? lo < alo - 0.5 || hi > ahi + 0.5        // fits: must be fully in view
      : lo > alo + 0.5 || hi < ahi - 0.5);      // larger than the view: must cover it
    return axis(b.l, b.r, a.l, a.r) || axis(b.t, b.b, a.t, a.b);
  }

  /** Centre of the in-view part of the element's first client rect that is in view, or null. */
  function clickPoint(el, g) {
    for (const r of clientRects(el)) {
      const part = intersect({ l: r.left + g.ox, t: r.top + g.oy, r: r.right + g.ox, b: r.bottom + g.oy }, g.area);
      if (nonEmpty(part)) return { x: round((part.l + part.r) / 2), y: round((part.t + part.b) / 2) };
    }
    return null;
  }
  const round = (v) => Math.round(v * 100) / 100;

  /** The element at a top-level viewport point, piercing open shadow roots and same-origin frames. */
  function hitTest(x, y) {
    let hit = document.elementFromPoint(x, y);
    let px = x, py = y;
    while (hit) {
      while (hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(px, py);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      const tag = hit.localName;
      if (tag !== 'iframe' && tag !== 'frame') break;
      const doc = frameDocument(hit);
      if (!doc) break;
      const o = contentOrigin(hit);
      px -= o.x; py -= o.y;
      const inner = doc.elementFromPoint(px, py);
      if (!inner) break;
      hit = inner;
    }
    return hit;
  }

  /** The parent in the composed tree, continuing from a shadow root to its host and from a frame's
   * document to its <iframe>. */
  function composedParent(n) {
    const p = n.parentNode;
    if (!p) return null;
    if (p.nodeType === 11) return p.host || null;
    if (p.nodeType === 9) return (p.defaultView && p.defaultView.frameElement) || null;
    return p;
  }

  /** Would a click at the hit element reach `target`? Its own subtree, a <label> target's control, or a
   * label of the target all count. */
  function hitReaches(target, hit) {
    const control = target.localName === 'label' ? target.control : null;
    for (let n = hit; n; n = composedParent(n)) {
      if (n === target || (control && n === control)) return true;
      if (n.localName === 'label' && n.control === target) return true;
    }
    return false;
  }

  function requestFrame() {
    if (state.rafPending) return;
    state.rafPending = true;
    requestAnimationFrame(() => { state.rafPending = false; state.frame++; });
  }

  const sameBox = (a, b) => Math.abs(a.l - b.l) < 0.01 && Math.abs(a.t - b.t) < 0.01 && Math.abs(a.r - b.r) < 0.01 && Math.abs(a.b - b.b) < 0.01;

  /** Stable: the same box in two samples with at least one animation frame between them (a hidden page
   * renders no frames and runs no animations: two samples suffice). */
  function stability(el, box, scrolled) {
    const now = performance.now();
    const last = state.samples.get(el);
    const fresh = scrolled || !last || now - last.t > 1000;
    if (fresh || !sameBox(last.box, box)) {
      state.samples.set(el, { box, frame: state.frame, t: now });
      requestFrame();
      return fresh ? 'pending' : 'unstable';
    }
    // Like Playwright: the same box across two animation frames (one may run before an animation's tick).
    if (state.frame - last.frame < 2 && document.visibilityState !== 'hidden' && now - last.t < 300) {
      requestFrame();
      return 'pending';
    }
    return 'stable';
  }

  function many(els) {
    return { status: 'many', count: els.length, items: els.slice(0, 5).map(describe) };
  }

  function single(loc) {
    const els = resolve(loc);
    if (!els.length) return { result: { status: 'none' } };
    if (els.length > 1) return { result: many(els) };
    return { el: els[0] };
  }

  /**
   * One actionability check. opts: {scroll = true, hitTest = true, enabled = true, editable = false}.
   * Status: none | many {count, items} | hidden | disabled | readonly | pending (first stability sample) |
   * unstable | offscreen | covered {by} | ok {x, y}; all but none/many carry `desc`.
   */
  /** The visible label a person clicks for a checkbox or radio the page hides behind its own drawing (a label
   *  holding a link or another control is not one: its middle might be that instead), or null. */
  function labelStandingFor(el) {
    if (el.localName !== 'input' || (el.type !== 'checkbox' && el.type !== 'radio')) return null;
    return [...(el.labels || [])].find((label) => isVisible(label) &&
      ![...label.querySelectorAll('a[href], button, input, select, textarea')].some((n) => n !== el)) || null;
  }

  /** The editing surface of a rich-text editor the page put in place of a text field it hid (EasyMDE and
   *  SimpleMDE's CodeMirror, CodeMirror 6, Trix, CKEditor 5, TinyMCE's inline mode, ProseMirror, Quill…): where a
   *  person types what the field holds. An editor that names the field (`<trix-editor input=ID>`) is taken at its
   *  word; otherwise the surface must come right after the field or after its wrapper, before any other field.
   *  null when the field is not hidden text or nothing stands for it. */
  function editorStandingFor(el) {
    const tag = el.localName;
    if (tag !== 'textarea' && tag !== 'input') return null;
    if (el.id) {
      const named = el.getRootNode().querySelector(`trix-editor[input="${CSS.escape(el.id)}"]`);
      if (named) return editingSurface(named);
    }
    if (tag === 'input' && !TEXT_INPUT.has(el.type)) return null;  // a hidden input only when named (a token is not)
    let node = el;
    for (let up = 0; up < 2 && node; up++, node = node.parentElement) {
      for (let sib = node.nextElementSibling; sib; sib = sib.nextElementSibling) {
        const surface = editingSurface(sib);
        if (surface) return surface;
        if (sib.matches(OTHER_FIELD) || sib.querySelector(OTHER_FIELD)) return null;
      }
    }
    return null;
  }
  const OTHER_FIELD = 'input:not([type=hidden]), select, textarea, [contenteditable=""], [contenteditable=true]';

  /** Where typing goes in an editor's element: CodeMirror 5's lines (a click there focuses its own input),
   *  CodeMirror 6's content, or the editable element itself; null when it holds none that shows. */
  function editingSurface(node) {
    if (!isVisible(node)) return null;
    if (node.matches('.CodeMirror')) return node.querySelector('.CodeMirror-lines') || node;
    if (node.matches('.cm-editor')) return node.querySelector('.cm-content') || node;
    if (node.isContentEditable) return node;
    const inner = node.querySelector('.CodeMirror, .cm-editor, [contenteditable=""], [contenteditable=true]');
    return inner && inner !== node ? editingSurface(inner) : null;
  }

  function actionable(loc, opts = {}) {
    const found = single(loc);
    if (!found.el) return found.result;
    const desc = describe(found.el);
    const editor = isVisible(found.el) ? null : editorStandingFor(found.el);
    const el = isVisible(found.el) ? found.el : labelStandingFor(found.el) || editor || found.el;
    if (!isVisible(el)) return { status: 'hidden', desc };
    if (opts.enabled !== false && isDisabled(el)) return { status: 'disabled', desc };
    if (opts.editable && !editor && !isEditable(el)) return { status: 'readonly', desc };
    let g = geometry(el);
    let scrolled = false;
    if (opts.scroll !== false && needsScroll(g)) {
      const before = g.box;
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      g = geometry(el);
      scrolled = !sameBox(before, g.box);
    }
    const point = clickPoint(el, g);
    if (!point) return { status: 'offscreen', desc };
    if (opts.stable !== false) {
      // Typing targets skip this (like Playwright's fill): a field that is visible, enabled and hit is enough.
      const stable = stability(el, g.box, scrolled);
      if (stable !== 'stable') return { status: stable, desc };
    }
    if (opts.hitTest !== false) {
      const hit = hitTest(point.x, point.y);
      if (!hit) return { status: 'offscreen', desc };
      if (!hitReaches(el, hit)) return { status: 'covered', desc, by: describe(hit) };
    }
    return { status: 'ok', desc: editor ? `${desc} through its editor` : desc, x: point.x, y: point.y, box: rect(g) };
  }

  /**
   * Where another site's frame (at `path` from this window) shows in this window: {status: 'ok', desc, x, y (its
   * viewport's origin), area {l, t, r, b} (the part of its viewport in view), reaches?, by?} in CSS px of this
   * window's viewport, or none | hidden. opts: {scroll: bring the frame into view when it is not,
   * point: [x, y] in this window (is the frame what a click there reaches? else `by` covers it)}.
   */
  function frameBox(path, opts = {}) {
    const el = frameAt(path);
    if (!el) return { status: 'none' };
    const desc = describe(el);
    if (!isVisible(el)) return { status: 'hidden', desc };
    let g = geometry(el);
    if (opts.scroll && needsScroll(g)) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      g = geometry(el);
    }
    const o = contentOrigin(el);
    const cs = styleOf(el);
    const x = g.ox + o.x, y = g.oy + o.y;
    const w = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const h = el.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
    const a = intersect(g.area, { l: x, t: y, r: x + w, b: y + h });
    const out = { status: 'ok', desc, x: round(x), y: round(y), area: { l: round(a.l), t: round(a.t), r: round(a.r), b: round(a.b) } };
    if (opts.point) {
      const hit = hitTest(opts.point[0], opts.point[1]);
      out.reaches = !!hit && hitReaches(el, hit);
      if (!out.reaches) out.by = hit ? describe(hit) : null;
    }
    return out;
  }

  /** Counts for waits: {count, visible, desc: description of the first visible (else first) match}. */
  function count(loc) {
    let els;
    try { els = resolve(loc); } catch (e) {
      if (e.kind === 'stale' && issued(loc.ref)) els = [];   // a ref of this document whose element left it
      else throw e;
    }
    const visible = els.filter(isVisible);
    const first = visible[0] || els[0];
    return { count: els.length, visible: visible.length, desc: first ? describe(first) : null };
  }

  function isVisibleApi(loc) { return count(loc).visible > 0; }

  const rect = (g) => ({ x: round(g.box.l), y: round(g.box.t), width: round(g.box.r - g.box.l), height: round(g.box.b - g.box.t) });

  /** Every match: tag, description, text, key attributes, rect, visible, hittable, ref. */
  function query(loc, limit = 50) {
    const els = resolve(loc);
    const rows = els.slice(0, limit).map((el) => {
      const g = geometry(el);
      const visible = isVisible(el);
      let hittable = false;
      if (visible) {
        const p = clickPoint(el, g);
        const hit = p && hitTest(p.x, p.y);
        hittable = !!hit && hitReaches(el, hit);
      }
      const attrs = {};
      for (const name of KEY_ATTRS.concat(['class', 'title'])) {
        const v = el.getAttribute(name);
        if (v !== null) attrs[name] = clip(v, 200);
      }
      const row = { ref: refFor(el), tag: el.localName, desc: describe(el), text: clip(contentText(el, { checkVisible: false, budget: 300 }), 200),
        attrs, rect: rect(g), visible, hittable, enabled: !isDisabled(el) };
      if ('value' in el && ['input', 'select', 'textarea', 'option', 'button'].includes(el.localName)) {
        row.value = el.localName === 'input' && el.type === 'password' ? '••••' : clip(String(el.value), 200);
      }
      if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) row.checked = el.checked;
      if (el.ownerDocument !== document) row.frame = describe(el.ownerDocument.defaultView.frameElement);
      return row;
    });
    return { count: els.length, rows };
  }

  // ---- snapshot --------------------------------------------------------------------------------------
  const INTERACTIVE = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox',
    'listbox', 'slider', 'spinbutton', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem',
    'gridcell']);
  const ANNOUNCE = new Set(['alert', 'status']);
  const SNAP_SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'math']);

  function shortHref(el) {
    const raw = el.getAttribute('href');
    if (raw === null) return null;
    let shown = raw;
    try {
      const u = new URL(raw, el.baseURI);
      shown = u.origin === location.origin ? u.pathname + u.search + u.hash : u.href;
    } catch (e) { /* keep raw */ }
    return clip(shown, 80);
  }

  function stateAttrs(el, role) {
    const out = [];
    const tag = el.localName;
    if (tag === 'input' && !BUTTON_INPUT.has(el.type) && !['checkbox', 'radio', 'text', 'search', 'range', 'number'].includes(el.type)) {
      out.push(`type=${el.type}`);
    }
    if (role === 'link') { const h = shortHref(el); if (h) out.push(`href=${showValue(h)}`); }
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      const c = ariaState(el, 'checked');
      if (c === 'true') out.push('checked');
      else if (c === 'mixed') out.push('checked=mixed');
    }
    if (tag === 'select') {
      const chosen = [...el.selectedOptions].map((o) => norm(o.text));
      out.push(`value=${JSON.stringify(clip(chosen.join(', '), 60))}`);
      const opts = [...el.options].slice(0, 12).map((o) => JSON.stringify(clip(norm(o.text), 30)));
      out.push(`options=[${opts.join(', ')}${el.options.length > 12 ? `, … ${el.options.length - 12} more` : ''}]`);
    } else if (tag === 'input' || tag === 'textarea') {
      if (!['checkbox', 'radio', 'file'].includes(el.type) && !BUTTON_INPUT.has(el.type) && el.value) {
        out.push(`value=${JSON.stringify(el.type === 'password' ? '••••' : clip(el.value, 60))}`);
      }
    } else if (role === 'textbox' && el.isContentEditable) {
      const t = contentText(el, { checkVisible: false, budget: 80 });
      if (t) out.push(`value=${JSON.stringify(clip(t, 60))}`);
    }
    if (isDisabled(el)) out.push('disabled');
    for (const name of ['expanded', 'pressed', 'selected']) {
      const v = el.getAttribute('aria-' + name);
      if (v === 'true' || (name === 'expanded' && v === 'false')) out.push(v === 'true' ? name : 'collapsed');
    }
    if (el.required || el.getAttribute('aria-required') === 'true') out.push('required');
    return out;
  }

  /*
   * The snapshot: the page's accessibility tree, compacted for a model. One pass over the composed tree
   * (open shadow roots, same-origin frames) builds nodes; a second prints them, one line per node, indented
   * by depth, and gives refs to the controls it prints.
   *
   * Nodes: {kind, role, name, el, kids, sig}; kinds: 'text' (static text, in `text`), 'control' (an
   * interactive element; its states are read from `stateOf` when printed), 'heading', 'announce' (alert,
   * status), 'img', 'frame', and 'box' for every other role with content (landmarks, lists, list items,
   * tables, rows, cells, paragraphs, figures, …) or 'generic' for a plain element that groups several nodes.
   * Plain inline elements are transparent (their text joins the text around them), and so are row groups,
   * unnamed groups and a paragraph around one control. A plain block element holding only text becomes one
   * text node; holding one node, it gives way to that node; holding several, it stays (a card, a grid row).
   * A label's text is left out where it names a visible control (it is in the control's line). Hidden
   * elements (display: none, visibility: hidden, aria-hidden) are left out.
   *
   * Folding: a run of more than `items` consecutive siblings of the same kind (same role; for `generic`, same
   * tag and class) shows `items` of them and one line saying how many more and how to see them: a snapshot
   * scoped to the run's parent (`locator` = its ref) from a given item (`start`, which applies to the runs
   * directly inside the scope). Prose (text, paragraphs, headings, quotes) is never folded.
   */
  const NO_FOLD = new Set(['text', 'paragraph', 'heading', 'blockquote']);
  const KEEP_EMPTY = new Set(['cell', 'columnheader', 'rowheader', 'gridcell', 'dialog', 'alertdialog']);
  const NAMED_BY_CHILD = { caption: 'table', legend: 'fieldset', figcaption: 'figure' };
  const BREAK = Object.freeze({});      // a block boundary in a flow of inline text
  const TEXT_CLIP = 300;
  const NAME_CLIP = 80;

  /** Append the flow of `el`'s composed children to `out`: strings (inline text), BREAK, or nodes. */
  function flowOf(el, out, textShown = true) {
    eachChild(el, (c) => {
      if (c.nodeType === 3) { if (textShown) out.push(c.data); } else if (c.nodeType === 1) flowElement(c, out);
    });
    return out;
  }

  /** Nodes of a flow: adjacent inline text joined and normalised; a lone `generic` gives way to its nodes. */
  function compact(flow) {
    let nodes = [];
    let text = '';
    const flush = () => { const t = norm(text); if (t) nodes.push({ kind: 'text', role: 'text', text: t, sig: 'text' }); text = ''; };
    for (const part of flow) {
      if (typeof part === 'string') text += part;
      else { flush(); if (part !== BREAK) nodes.push(part); }
    }
    flush();
    while (nodes.length === 1 && nodes[0].role === 'generic') nodes = nodes[0].kids;
    return nodes;
  }

  const isInline = (el) => { const d = styleOf(el).display; return d === 'inline' || d === 'contents'; };
  const kidsOf = (el, textShown = true) => compact(flowOf(el, [], textShown));

  function flowElement(el, out) {
    const tag = el.localName;
    if (SNAP_SKIP.has(tag) || el.getAttribute('aria-hidden') === 'true') return;
    let textShown = true;
    if (!el.checkVisibility({ visibilityProperty: true })) {
      if (!el.checkVisibility()) { if (styleOf(el).display !== 'contents') return; }
      else textShown = false;   // visibility: hidden; a child may be visible again
    }
    if (tag === 'br') { out.push(' '); return; }
    if (tag === 'iframe' || tag === 'frame') { const n = frameNode(el); if (n) out.push(n); return; }
    const parent = el.parentElement;
    if (NAMED_BY_CHILD[tag] && parent && parent.localName === NAMED_BY_CHILD[tag] &&
        !parent.hasAttribute('aria-label') && !parent.hasAttribute('aria-labelledby')) return;   // in the parent's name
    const role = roleOf(el);
    if (INTERACTIVE.has(role) || (!role && el.hasAttribute('onclick'))) {
      if (role === 'option' && tag === 'option') return;   // shown with their <select>
      if (textShown && isVisible(el)) out.push(controlNode(el, role));
      return;
    }
    if (tag === 'label' && el.control) {
      const control = el.control;
      if (isVisible(control)) {   // its text names the control: keep only what else it holds
        out.push(BREAK, ...kidsOf(el, textShown).filter((n) => n.kind !== 'text'), BREAK);
        return;
      }
      const crole = roleOf(control);
      if (crole && isVisible(el)) {   // a styled checkbox or radio whose input is hidden: the label stands in
        out.push({ kind: 'control', role: crole, name: contentText(el, { skipControls: true }), el, stateOf: control,
          kids: [], sig: crole });
        return;
      }
    }
    if (role === 'heading') {
      out.push({ kind: 'heading', role, name: accName(el, role), el, level: ariaState(el, 'level') || 2,
        kids: kidsOf(el, textShown).filter((n) => n.kind !== 'text'), sig: role });
      return;
    }
    if (ANNOUNCE.has(role)) {
      const text = accName(el, role) || contentText(el);
      if (text) out.push({ kind: 'announce', role, name: text, el, kids: [], sig: role });
      return;
    }
    if (role === 'img') {
      const name = accName(el, role);
      if (name) out.push({ kind: 'img', role, name, el, kids: [], sig: role });
      return;
    }
    if (role === 'presentation') return;
    if (role === 'rowgroup' || (role === 'group' && !accName(el, role))) {   // only what they hold
      out.push(BREAK, ...kidsOf(el, textShown), BREAK);
      return;
    }
    if (!role || role === 'generic') {
      if (isInline(el)) { flowOf(el, out, textShown); return; }
      const kids = kidsOf(el, textShown);
      if (!kids.length) out.push(BREAK);
      else if (kids.every((n) => n.kind === 'text')) {
        out.push({ kind: 'text', role: 'text', text: kids.map((n) => n.text).join(' '), sig: 'text' });
      } else if (kids.length === 1) out.push(kids[0]);
      else out.push({ kind: 'box', role: 'generic', name: '', el, kids, sig: `generic ${tag}.${el.className}` });
      return;
    }
    const name = NAME_FROM_CONTENT.has(role) ? ariaName(el) : accName(el, role);
    const kids = kidsOf(el, textShown);
    if (role === 'paragraph' && !name && kids.length === 1 && kids[0].kind !== 'text') { out.push(kids[0]); return; }
    if (kids.length || name || KEEP_EMPTY.has(role)) out.push({ kind: 'box', role, name, el, kids, sig: role });
    else out.push(BREAK);
  }

  /** The name an author gave (aria-labelledby, aria-label), for roles whose name is otherwise their content. */
  function ariaName(el) {
    const by = el.getAttribute('aria-labelledby');
    const text = by ? norm(byIds(el, by).map((e) => contentText(e, { checkVisible: false })).join(' ')) : '';
    return text || norm(el.getAttribute('aria-label') || '');
  }

  function controlNode(el, role) {
    const name = accName(el, role) || (role ? '' : contentText(el));
    const node = { kind: 'control', role: role || 'clickable', name, el, stateOf: el, kids: [], sig: role || 'clickable' };
    const tag = el.localName;
    // Items of a custom listbox or tree, and the content of a control whose name cannot hold it all.
    if ((['listbox', 'combobox', 'gridcell', 'treeitem'].includes(role) && tag !== 'select' && tag !== 'input') ||
        (name.length > NAME_CLIP && el.firstElementChild)) {
      node.kids = kidsOf(el);
    }
    return node;
  }

  function frameNode(el) {
    if (!isVisible(el)) return null;
    const name = el.getAttribute('title') || el.getAttribute('name') || '';
    const doc = frameDocument(el);
    if (!doc || !doc.documentElement) return { kind: 'frame', role: 'iframe', name, el, kids: [], crossOrigin: true, path: framePath(el), sig: 'iframe' };
    return { kind: 'frame', role: 'iframe', name, el, kids: kidsOf(doc.documentElement), sig: 'iframe' };
  }

  function nodeLine(node) {
    const named = node.name ? ' ' + JSON.stringify(clip(node.name, NAME_CLIP)) : '';
    switch (node.kind) {
      case 'text': return 'text: ' + clip(node.text, TEXT_CLIP);
      case 'control': {
        const attrs = stateAttrs(node.stateOf, node.role === 'clickable' ? '' : node.role);
        return `${node.role}${named} [ref=${refFor(node.el)}]${attrs.length ? ' ' + attrs.join(' ') : ''}`;
      }
      case 'heading': return `heading${named} level=${node.level}`;
      case 'frame': return `iframe${named}${node.crossOrigin ? ' (cross-origin, not readable)' : ''}`;
      default: return node.role + named;
    }
  }

  /**
   * A compact outline of the page (or of one element, `locator`) for a model: its accessibility tree with
   * refs on interactive elements; see above. Options: {locator, start = 1, items = 25 (0: never fold),
   * limit = 1000 lines}. Returns {url, title, text, refs, folded, truncated, generation}, or a status
   * (none, many) when the locator does not name one element.
   */
  function snapshot(opts = {}) {
    const start = Math.max(1, opts.start || 1), items = opts.items ?? 25, limit = opts.limit ?? 1000;
    let root = document.documentElement, scope = null;
    if (opts.locator) {
      const { el, result } = single(opts.locator);
      if (!el) return result;
      scope = describe(el);
      const doc = (el.localName === 'iframe' || el.localName === 'frame') && frameDocument(el);
      root = doc ? doc.documentElement : el;
    }
    state.generation++;
    for (const [ref, weak] of state.refs) if (!weak.deref()) state.refs.delete(ref);   // collected elements
    const lines = [];
    const refs = new Set();
    const frames = [];   // another site's frames printed: {line, depth, path}, for the caller to fill in
    let skipped = 0, folded = 0;
    const emit = (depth, text) => {
      if (lines.length >= limit) { skipped++; return; }
      lines.push('  '.repeat(depth) + '- ' + text);
    };
    const foldLine = (depth, owner, what, count, from, to, total, next) => {
      if (lines.length >= limit) { skipped++; return; }
      const ref = refFor(owner);
      refs.add(ref);
      emit(depth, `… ${count} ${what} (${from}-${to} of ${total}): page_snapshot {"locator": {"ref": "${ref}"}, "start": ${next}}`);
    };
    const printNode = (node, depth) => {
      const kids = node.kids || [];
      const oneLine = node.kind === 'box' && kids.length === 1 && kids[0].kind === 'text';   // `- cell: $49.00`
      if (lines.length >= limit) {   // past the limit: only count what is left out
        skipped++;
        if (!oneLine) printList(kids, depth + 1, node.el, 1);
        return;
      }
      const line = nodeLine(node);
      if (node.kind === 'control') refs.add(refFor(node.el));
      if (node.crossOrigin && node.path) frames.push({ line: lines.length, depth, path: node.path });
      if (oneLine) emit(depth, `${line}: ${clip(kids[0].text, TEXT_CLIP)}`);
      else {
        emit(depth, kids.length ? line + ':' : line);
        printList(kids, depth + 1, node.el, 1);
      }
    };
    const printList = (nodes, depth, owner, first) => {
      for (let i = 0; i < nodes.length;) {
        let j = i + 1;
        while (j < nodes.length && nodes[j].sig === nodes[i].sig) j++;
        const run = j - i, role = nodes[i].role;
        if (items > 0 && run > items && owner && !NO_FOLD.has(role)) {
          folded++;
          const from = Math.min(first, run), to = Math.min(run, from + items - 1);
          if (from > 1) foldLine(depth, owner, `earlier ${role}`, from - 1, 1, from - 1, run, Math.max(1, from - items));
          for (let k = i + from - 1; k < i + to; k++) printNode(nodes[k], depth);
          if (to < run) foldLine(depth, owner, `more ${role}`, run - to, to + 1, run, run, to + 1);
        } else {
          for (let k = i; k < j; k++) printNode(nodes[k], depth);
        }
        i = j;
      }
    };
    if (root) printList(kidsOf(root), 0, root, start);
    if (skipped) lines.push(`- … ${skipped} more lines left out (snapshot limit ${limit}): snapshot a part with {"locator": …}`);
    const header = [`url: ${location.href}`, `title: ${document.title}`];
    if (scope) header.push(`scope: ${scope}`);
    for (const f of frames) f.line += header.length;
    return { url: location.href, title: document.title, text: header.concat(lines).join('\n'), refs: refs.size,
      folded, truncated: skipped > 0, generation: state.generation, frames };
  }

  // ---- helpers for the driver -------------------------------------------------------------------------
  /** The <select> a locator names (a <label> gives its control), with the usual single/visible/enabled
   * checks; returns {el} or a status result. */
  function selectFor(loc) {
    const { el: found, result } = single(loc);
    if (!found) return { result };
    const el = found.localName === 'label' && found.control ? found.control : found;
    const desc = describe(el);
    if (el.localName !== 'select') return { result: { status: 'notselect', desc } };
    if (!isVisible(el)) return { result: { status: 'hidden', desc } };
    if (isDisabled(el)) return { result: { status: 'disabled', desc } };
    return { el, desc };
  }

  function optionIndexes(el, wanted) {
    const opts = [...el.options];
    return wanted.map((w) => {
      const s = String(w);
      let i = opts.findIndex((o) => o.value === s);
      if (i < 0) i = opts.findIndex((o) => norm(o.text) === norm(s));
      if (i < 0) { const low = norm(s).toLowerCase(); i = opts.findIndex((o) => norm(o.text).toLowerCase() === low); }
      if (i < 0) i = opts.findIndex((o) => o.label && norm(o.label) === norm(s));
      return i;
    });
  }

  /**
   * Find (and unless `apply` is false, choose) the option(s) of a native <select> by value or visible text.
   * Sets the selection and dispatches input and change (the page cannot tell it from a person's choice
   * except by isTrusted). Returns {status: 'ok', index, indexes, value, text, previousIndex, desc} or
   * none | many | notselect | hidden | disabled | nooption {desc, options}.
   */
  function selectOption(loc, option, apply = true) {
    const { el, desc, result } = selectFor(loc);
    if (!el) return result;
    const wanted = Array.isArray(option) ? option : [option];
    const indexes = optionIndexes(el, wanted);
    const missing = indexes.indexOf(-1);
    if (missing >= 0 || !wanted.length) {
      return { status: 'nooption', desc, option: String(wanted[missing] ?? ''), options: [...el.options].slice(0, 10).map((o) => norm(o.text)),
        more: Math.max(0, el.options.length - 10) };
    }
    if (indexes.length > 1 && !el.multiple) return { status: 'notmultiple', desc };
    const previousIndex = el.selectedIndex;
    if (indexes.some((i) => el.options[i].disabled)) return { status: 'disabledoption', desc, option: String(wanted[0]) };
    if (apply) {
      if (el.multiple) for (let i = 0; i < el.options.length; i++) el.options[i].selected = indexes.includes(i);
      else el.selectedIndex = indexes[0];
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }
    const first = el.options[indexes[0]];
    return { status: 'ok', desc, index: indexes[0], indexes, value: first.value, text: norm(first.text), previousIndex };
  }

  /** Focus the element (no scrolling beyond what focus does); returns {status: 'ok', focused} or a status. */
  function focus(loc) {
    const { el, result } = single(loc);
    if (!el) return result;
    const desc = describe(el);
    if (!isVisible(el)) return { status: 'hidden', desc };
    if (isDisabled(el)) return { status: 'disabled', desc };
    el.focus();
    let active = el.ownerDocument.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    return { status: 'ok', desc, focused: active === el };
  }

  /** `fn()` in the current per-call memo, or in a new one for its duration. */
  function within(fn) {
    if (cx) return fn();
    cx = newContext();
    try { return fn(); } finally { cx = null; }
  }

  /** Call `fn`; our own failures become {error: kind, message}, anything else propagates. */
  const api = (fn) => (...args) => {
    cx = newContext();
    try {
      const result = fn(...args);
      if (cx.hops && result && typeof result === 'object') result.hops = cx.hops;
      return result;
    } catch (e) {
      if (e instanceof LocatorFailure) return { error: e.kind, message: e.message };
      throw e;
    } finally {
      cx = null;
    }
  };

  window.__bp = Object.freeze({
    version: VERSION,
    actionable: api(actionable),
    count: api(count),
    isVisible: api(isVisibleApi),
    query: api(query),
    snapshot: api(snapshot),
    selectOption: api(selectOption),
    focus: api(focus),
    frameBox: api(frameBox),
    describe: api((loc) => {
      const els = resolve(loc);
      return { count: els.length, items: els.slice(0, 5).map(describe) };
    }),
    // For other helpers run in this world (inspect.js): elements themselves, not JSON. `elements` throws
    // {kind, message} for a bad locator; the rest take an element.
    elements: (loc) => within(() => resolve(loc)),
    // `fn` with one memo (labels of a tree…) for all the element calls it makes: healing asks for the names of
    // every candidate, and a memo per call rebuilt the label index each time.
    batch: (fn) => within(fn),
    element: {
      at: (x, y) => hitTest(x, y),
      ref: (el) => refFor(el),
      describe: (el) => within(() => describe(el)),
      role: (el) => roleOf(el),
      name: (el) => within(() => accName(el, roleOf(el))),
      text: (el) => contentText(el, { checkVisible: false, budget: 300 }),
      visible: (el) => isVisible(el),
      editor: (el) => editorStandingFor(el),   // the editor a page put in place of a field it hid, or null
      rect: (el) => rect(geometry(el)),
      frame: (path) => within(() => frameAt(path)),   // the <iframe> of the frame at an index path, or null
    },
  });
})();
