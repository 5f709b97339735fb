/*
 * choose.js: custom select widgets (select2, Choices.js, Tom Select, react-select, MUI/Ant selects and the like),
 * told by how they behave and what they tell assistive technology, never by a library's class names:
 *
 * - a *combobox* is an element with role=combobox or aria-haspopup (listbox or true), or a text field that says
 *   whether it is expanded (aria-expanded: the field of a list it opens, whatever role it claims); the widget of
 *   a field is the nearest ancestor (a few levels up) that is one, or that holds exactly one such element and no
 *   other field;
 * - a widget usually hides a native <select> it keeps in step (the form still posts it): the select's *widget*
 *   is found the other way round, in the select's nearest ancestors holding no other select or field;
 * - the list it opens is made of role=option elements (in a role=listbox); the person picks one by clicking it,
 *   or by Enter on the option the focused field names as its aria-activedescendant.
 *
 * Used by the recorder (resources/js/recorder.js: a choice becomes one `select` step) and by replay
 * (app/browser/locators.py: open the widget, type or scroll, click the option whose text matches). Injected
 * after locator.js into the helpers' world and the recorder's; defines `__bpChoose`.
 */
(() => {
  'use strict';
  if (window.__bpChoose || !window.__bp) return;
  const bp = window.__bp;
  const E = bp.element;
  const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim();
  // A list box's opener (a menu's or a dialog's is not one).
  const COMBO = '[role=combobox], [aria-haspopup]:not([aria-haspopup=false]):not([aria-haspopup=menu])' +
    ':not([aria-haspopup=dialog]):not([aria-haspopup=tree]):not([aria-haspopup=grid]), ' +
    'input[aria-expanded]:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit])';
  /** A combobox of the page, not a part of an open list (a search box in it): its own role may say listbox. */
  const outsideLists = (c) => !(c.parentElement && c.parentElement.closest('[role=listbox]'));
  const FIELDS = 'input:not([type=hidden]), select, textarea';
  const LEVELS = 4;

  const rectOf = (el) => el.getBoundingClientRect();
  const big = (el) => { const r = rectOf(el); return r.width >= 8 && r.height >= 8; };
  /** Shown as a control a person can use (a select a widget hid is 1px, clipped, offscreen or display:none). */
  const shown = (el) => E.visible(el) && big(el) && !el.hidden && el.getAttribute('aria-hidden') !== 'true' &&
    Number(el.ownerDocument.defaultView.getComputedStyle(el).opacity) > 0.05;

  /** The options shown now (for telling a list that opened from what a widget shows while closed). */
  const shownOptions = () => new Set(bp.elements({ selector: '[role=option]' }).filter((el) => E.visible(el)));

  /** The visible options of the open lists, each with the number of options in its list. */
  function openOptions() {
    const out = [];
    for (const el of bp.elements({ selector: '[role=option]' })) {
      if (el.localName === 'option' || !E.visible(el)) continue;
      const list = el.closest('[role=listbox]') || el.parentElement;
      out.push({ el, text: norm(el.innerText || el.textContent), size: list ? list.querySelectorAll('[role=option]').length : 1 });
    }
    return out;
  }

  const stop = (n) => !n || n.localName === 'form' || n.localName === 'body' || n.localName === 'html';
  /** Holds `combo` as its only combobox, and no other field a person can use. */
  const holdsOnly = (n, combo) => {
    const combos = [...n.querySelectorAll(COMBO)].filter((c) => E.visible(c) && outsideLists(c));
    return combos.every((c) => c === combo || combo.contains(c) || c.contains(combo)) &&
      [...n.querySelectorAll(FIELDS)].every((f) => f === combo || combo.contains(f) || !shown(f));
  };

  /** The widget `el` is a part of: {combo, container} (the combobox, and the largest element a few levels up
   *  that holds it and no other field), or null: see the top of this file. */
  function comboOf(el) {
    let combo = null;
    let n = el;
    for (let i = 0; !stop(n) && i <= LEVELS; i++, n = n.parentElement) {
      if (n.matches(COMBO)) { combo = n; break; }
      if (i === 0) continue;
      const inside = [...n.querySelectorAll(COMBO)].filter((c) => E.visible(c) && outsideLists(c));
      if (inside.length === 1 && holdsOnly(n, inside[0])) { combo = inside[0]; break; }
      if (inside.length > 1) return null;
    }
    if (!combo) return null;
    let container = combo;
    for (let up = combo.parentElement, i = 0; !stop(up) && i < LEVELS && holdsOnly(up, combo); up = up.parentElement, i++) {
      container = up;
    }
    return { combo, container };
  }

  /** What a person clicks to open the widget (a combobox too small to click stands for an element around it). */
  function triggerOf(combo, container) {
    const usable = (n) => E.visible(n) && rectOf(n).width >= 4 && rectOf(n).height >= 4;
    if (usable(combo)) return combo;
    for (let n = combo.parentElement; n && n !== container.parentElement; n = n.parentElement) if (shown(n)) return n;
    return shown(container) ? container : null;
  }

  /** The native <select> a widget hides and keeps in step, or null. */
  function nativeOf(el) {
    let n = el;
    for (let i = 0; !stop(n) && i <= LEVELS; i++, n = n.parentElement) {
      if (n.localName === 'select') return shown(n) ? null : n;
      const selects = n.querySelectorAll('select');
      if (selects.length === 1) return shown(selects[0]) ? null : selects[0];
      if (selects.length > 1) return null;
    }
    return null;
  }

  /** The widget a hidden native <select> is shown as: its trigger, or null (a select shown as itself). */
  function widgetOf(select) {
    if (shown(select)) return null;
    let n = select.parentElement;
    for (let i = 0; !stop(n) && i < LEVELS; i++, n = n.parentElement) {
      if (n.matches(COMBO) && shown(n)) return n;
      if (n.querySelectorAll('select').length > 1) return null;
      const combos = [...n.querySelectorAll(COMBO)].filter(outsideLists);
      if (combos.length) return triggerOf(combos[0], n);
    }
    return null;
  }

  /** Whether `el` is part of an open list's popup (its search box, its options): an element a few levels up
   *  holds a shown list of options. */
  function inList(el) {
    for (let n = el, i = 0; n && !stop(n) && i <= LEVELS; n = n.parentElement, i++) {
      for (const list of n.querySelectorAll('[role=listbox]')) {
        if (E.visible(list) && list.querySelectorAll('[role=option]').length > 1) return true;
      }
    }
    return false;
  }

  /** The option a person picks with this event's target, or null. */
  function optionAt(target) {
    const el = target && target.closest ? target.closest('[role=option]') : null;
    return el && el.localName !== 'option' ? el : null;
  }

  /** The option the focused field points at (aria-activedescendant), or null. */
  function activeOption(field) {
    const id = field && field.getAttribute && field.getAttribute('aria-activedescendant');
    if (!id) return null;
    const root = field.getRootNode();
    const el = root.getElementById ? root.getElementById(id) : field.ownerDocument.getElementById(id);
    return el && el.matches('[role=option]') && el.localName !== 'option' ? el : null;
  }

  const textOf = (el) => norm(el.innerText || el.textContent);

  // ---- replay: one look each, driven from app/browser/locators.py ------------------------------------------
  /** {status: ok, ref, desc, native?} the element to click to open the list the locator's element stands for:
   *  the widget of a hidden native select, or the element itself. */
  function trigger(loc) {
    let els;
    try { els = bp.elements(loc); } catch (e) { return { status: 'invalid', message: String(e.message || e) }; }
    if (els.length !== 1) return { status: els.length ? 'many' : 'none', count: els.length, items: els.slice(0, 5).map(E.describe) };
    const el = els[0].localName === 'label' && els[0].control ? els[0].control : els[0];
    if (el.localName === 'select') {
      if (shown(el)) return { status: 'native', desc: E.describe(el) };
      const widget = widgetOf(el);
      if (!widget) return { status: 'hidden', desc: E.describe(el) };
      return { status: 'ok', ref: E.ref(widget), desc: E.describe(widget), native: E.ref(el) };
    }
    const native = nativeOf(el);
    // A combobox too small to click is opened through the box a person clicks around it.
    const found = el.matches(COMBO) ? comboOf(el) : null;
    const opener = found ? triggerOf(found.combo, found.container) || el : el;
    return { status: 'ok', ref: E.ref(opener), desc: E.describe(opener), ...(native ? { native: E.ref(native) } : {}) };
  }

  /** {status: ok, ref} the open list's option whose text is `wanted` (exactly, then ignoring case; in the
   *  longest list when several show it), else {status: none, options: [texts], typing: the focus is in a field}. */
  function option(wanted) {
    const want = norm(wanted);
    const all = openOptions();
    let found = all.filter((o) => o.text === want);
    if (!found.length) found = all.filter((o) => o.text.toLowerCase() === want.toLowerCase());
    if (found.length) {
      const best = found.reduce((a, b) => (b.size > a.size ? b : a));
      return { status: 'ok', ref: E.ref(best.el), desc: E.describe(best.el) };
    }
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    // Only a widget's own search box is typed into (a combobox, an autocomplete or search field, or one in the
    // open list's popup), never a field that happens to have the focus.
    const typing = !!active && (active.localName === 'input' || active.isContentEditable) &&
      (active.matches(COMBO + ', [aria-autocomplete], [role=searchbox], [type=search]') || inList(active));
    return { status: 'none', options: all.slice(0, 10).map((o) => o.text), more: Math.max(0, all.length - 10), typing };
  }

  /** {status: ok} when the option is wholly inside the lists that clip it, else {status: scroll, x, y, dy}: where
   *  to turn the wheel (the middle of the nearest clipping list, in top-level viewport px) and by how much. */
  function reveal(ref) {
    let el = null;
    try { [el] = bp.elements({ ref }); } catch (e) { el = null; }
    if (!el) return { status: 'none' };
    const r = rectOf(el);
    for (let n = el.parentElement; n && n !== el.ownerDocument.documentElement; n = n.parentElement) {
      const style = el.ownerDocument.defaultView.getComputedStyle(n);
      if (!/(auto|scroll|hidden)/.test(style.overflowY) || n.scrollHeight <= n.clientHeight + 1) continue;
      const box = rectOf(n);
      const top = box.top + n.clientTop, bottom = top + n.clientHeight;
      if (r.top >= top - 1 && r.bottom <= bottom + 1) continue;
      const frame = E.rect(n);   // top-level viewport px (through frames)
      return { status: 'scroll', x: frame.x + frame.width / 2, y: frame.y + Math.min(frame.height, n.clientHeight) / 2,
               dy: (r.top + r.bottom) / 2 - (top + bottom) / 2 };
    }
    return { status: 'ok' };
  }

  /** {status: ok, text} what the widget shows now: the native select's chosen option, else the text of the
   *  widget around its trigger (without an open list). */
  function shows(triggerRef, nativeRef) {
    if (nativeRef) {
      let select = null;
      try { [select] = bp.elements({ ref: nativeRef }); } catch (e) { select = null; }
      const chosen = select && select.selectedOptions[0];
      return { status: 'ok', text: chosen ? norm(chosen.text) : '', value: select ? select.value : '' };
    }
    let el = null;
    try { [el] = bp.elements({ ref: triggerRef }); } catch (e) { el = null; }
    if (!el) return { status: 'none' };
    const widget = comboOf(el);
    const container = widget ? widget.container : el;
    const copy = container.cloneNode(true);
    for (const list of copy.querySelectorAll('[role=listbox]')) {
      if (list.querySelectorAll('[role=option]').length > 1) list.remove();
    }
    return { status: 'ok', text: norm(copy.textContent) + ' ' + norm(el.value || '') };
  }

  window.__bpChoose = Object.freeze({ comboOf, triggerOf, nativeOf, widgetOf, optionAt, activeOption, textOf, inList,
    shownOptions,
    trigger: (loc) => bp.batch(() => trigger(loc)), option: (wanted) => bp.batch(() => option(wanted)),
    shows: (t, n) => bp.batch(() => shows(t, n)), reveal: (ref) => bp.batch(() => reveal(ref)) });
})();
