/*
 * recorder.js: what a person does in a page, as raw steps for the recorder (app/browser/recorder.py).
 *
 * Runs in the recorder's own isolated world (RECORD_WORLD), on every frame, on top of locator.js and
 * locator_gen.js loaded into that same world. It only *listens*: capture-phase listeners on the window for
 * trusted pointer, mouse, key, input, change and wheel events. It adds nothing to the page's DOM or globals
 * (its globals live in its own world), calls no page function and dispatches no event, so a page cannot
 * tell it is being recorded.
 *
 * Each raw step goes to Python as one console message of this world, `TOKEN + JSON` (the token is random per
 * recording session and unknown to the page, whose console is another world's). Locators are computed at
 * pointer-down / key-down, before the page reacts, for the element's interactive ancestor, by the one
 * generator (`__bpGen.locatorFor`). Values of secret fields (password, one-time-code, card numbers…) never
 * leave the page: only the fact that the field is secret and a name for its start variable.
 *
 * Raw steps: click {loc, desc, button, detail, control?, offset?, fallback?}, drag {loc, desc, offset, dx,
 * dy, fallback?}, fill {loc, desc, value?, secret?, variable, paste}, select {loc, desc, option}, press
 * {shortcut, loc?}, scroll {direction, distance, loaded}, select {widget, from, loc, native?, option} (a custom
 * select widget's choice, see `widgetBegins`), blocked {why}, and mark (the app's end-of-operation marker,
 * a lone trusted F24 key-up: what was reported before it was the app's doing). Every one carries `frame` (the
 * frame's URL when not the top frame) and `seq`, when it was sent (see `send`). In a frame the top frame cannot
 * read (another site's), locators come from that frame's own generator and the step carries `framePath` (the
 * frame's `window.frames` index path from the top), for app/browser/recorder_frames.py to make them the page's.
 *
 * A drag: the left button pressed on anything but a text field, a slider or a select, moved more than
 * DRAG_MIN_PX and released, with no text selected by it. The click the page gets after it is not a step, nor
 * is the click after selecting text by dragging.
 */
((TOKEN) => {
  'use strict';
  if (window.__bpRecorder === TOKEN) return;
  window.__bpRecorder = TOKEN;
  const SECRET_AUTOCOMPLETE = ['one-time-code', 'cc-number', 'cc-csc', 'current-password', 'new-password'];
  const TEXT_INPUTS = ['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'time',
                       'datetime-local', 'month', 'week', ''];
  const EDIT_KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'Backspace',
                             'Delete', 'PageUp', 'PageDown']);
  const EDIT_SHORTCUTS = new Set(['a', 'c', 'v', 'x', 'z', 'y']);
  const NAMED = { Enter: 'enter', Tab: 'tab', Escape: 'escape', ArrowUp: 'arrowup', ArrowDown: 'arrowdown',
                  ArrowLeft: 'arrowleft', ArrowRight: 'arrowright', PageUp: 'pageup', PageDown: 'pagedown',
                  Home: 'home', End: 'end', Backspace: 'backspace', Delete: 'delete', ' ': 'space' };
  const DRAG_MIN_PX = 6;
  const MARK_KEY = 'F24';
  const frameUrl = window === window.top ? null : String(location.href);
  // The window whose generator makes the locators: the top's, or this frame's own in another site's frame.
  const home = () => { try { if (window.top.__bpGen) return window.top; } catch (e) { /* another site */ } return window; };
  const framePath = () => {
    const path = [];
    for (let w = window; w !== w.top; w = w.parent) {
      let k = -1;
      for (let i = 0; i < w.parent.frames.length; i++) if (w.parent.frames[i] === w) { k = i; break; }
      path.unshift(k);
    }
    return path;
  };

  // Each raw step carries `seq`, when it was sent (epoch ms, increasing): comparable across the frames and the
  // documents of a recording, whose own counters would start again at every page load.
  let sent = 0;
  const now = () => performance.timeOrigin + performance.now();
  const send = (step) => {
    if (frameUrl) step.frame = frameUrl;
    if (frameUrl && step.loc && home() === window) step.framePath = framePath();
    sent = Math.max(now(), sent + 0.001);
    step.seq = sent;
    console.debug(TOKEN + JSON.stringify(step));
  };
  // The custom select widgets' chooser (resources/js/choose.js) and the generator: the top's, or in another
  // site's frame the frame's own (a choice there is one step, as on the page).
  const chooser = () => home().__bpChoose || null;
  const generator = () => home().__bpGen || null;

  const isTextField = (el) => !!el && ((el.localName === 'input' && TEXT_INPUTS.includes(el.type)) ||
    el.localName === 'textarea' || el.isContentEditable);
  // Typing into a rich-text editor the page put in place of a text field it hid (EasyMDE and SimpleMDE's
  // CodeMirror, CodeMirror 6, Trix, CKEditor 5…) is typing into that field: its fill names the field (which the
  // plain page and another editor have too) and holds the editor's text. Which field an editor stands for is the
  // replay's own rule (`editorStandingFor`, resources/js/locator.js): the hidden field whose stand-in is in this
  // editor, so what is recorded is what replay types into.
  const EDITOR_HOSTS = '.CodeMirror, .cm-editor, trix-editor';
  const editors = new WeakMap();   // field -> the editor's element typed into
  function fieldOfEditor(el) {
    if (!el || el.nodeType !== 1) return null;
    let host = el.closest(EDITOR_HOSTS);
    if (!host && el.isContentEditable) {
      host = el;
      while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement;
    }
    const bp = host && host.ownerDocument.defaultView.__bp;
    if (!bp) return null;
    for (const field of host.getRootNode().querySelectorAll('textarea, input')) {
      if (field.checkVisibility()) continue;
      const surface = bp.element.editor(field);
      if (surface && host.contains(surface)) return { field, host };
    }
    return null;
  }
  /** What an editor shows as text (CodeMirror 5 draws each line apart, an empty one as a zero-width space). */
  function editorText(host) {
    const lines = host.matches('.CodeMirror') ? host.querySelectorAll('.CodeMirror-line')
      : host.matches('.cm-editor') ? host.querySelectorAll('.cm-line') : null;
    if (lines) return [...lines].map((line) => line.textContent.replace(/\u200b/g, '')).join('\n');
    return host.innerText.replace(/\n$/, '');
  }

  const isSecret = (el) => el.localName === 'input' && (el.type === 'password' ||
    String(el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/).some((t) => SECRET_AUTOCOMPLETE.includes(t)));
  const slug = (s) => String(s || '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 30);

  function variableName(el, gen) {
    const label = el.labels && el.labels[0] ? el.labels[0].textContent : '';
    const id = el.id && gen.stableId(el.id) ? el.id : '';
    return slug(el.getAttribute('name')) || slug(label) || slug(el.getAttribute('autocomplete')) ||
      slug(id) || slug(el.getAttribute('placeholder')) || (isSecret(el) ? 'password' : 'text');
  }

  const target = (event) => (event.composedPath ? event.composedPath()[0] : event.target);
  const control = (el) => (el.localName === 'input' ? el.type : el.localName === 'select' ? 'select' : null);

  /** {loc, desc} for the element, or {blocked} when nothing can find it again from the top frame. */
  function describeTarget(el) {
    const gen = generator();
    if (!gen) return { blocked: 'the element is in a cross-origin frame, which the recorder cannot reach' };
    const loc = gen.locatorFor(el);
    const E = home().__bp.element;
    return { el, loc, desc: E.describe(el), role: E.role(el) || el.localName,
             name: String(E.name(el) || '').replace(/\s+/g, ' ').trim().slice(0, 60) };
  }

  /** A click point relative to the element's box, as fractions of its size. */
  const offsetIn = (el, x, y) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return null;
    const clamp = (v) => Math.min(1, Math.max(0, Math.round(v * 1000) / 1000));
    return { x: clamp((x - r.left) / r.width), y: clamp((y - r.top) / r.height) };
  };

  // What lives only while a list, a menu or a tooltip is open: a point inside a container that stays (or in the
  // popup, which replay may open elsewhere or in another order) would act on something else.
  const TRANSIENT = '[role=option], [role=listbox], [role=menu], [role=menuitem], [role=menuitemradio], ' +
    '[role=menuitemcheckbox], [role=tooltip], option, datalist';
  const transient = (el) => !el.isConnected || !!el.closest(TRANSIENT) || !!(chooser() && chooser().inList(el));

  /** Why an element is not recorded: nothing finds it again, and no point in another element stands for it. */
  const unfound = (t, el) => transient(el)
    ? `${t.desc} was part of a list or menu open only for a moment, and no locator finds it alone (a point ` +
      'in what stayed could hit another item)'
    : `no locator finds ${t.desc} again`;

  /** For an element no locator finds alone: the nearest ancestor one does, and the point inside it; null for an
   *  element that is gone or part of an open list or menu (see `transient`). */
  function fallback(el, x, y) {
    if (transient(el)) return null;
    const gen = generator();
    for (let n = el.parentElement; n; n = n.parentElement) {
      const loc = gen.locatorFor(n);
      if (loc.unique && (loc.selector || loc.xpath)) {
        return { loc, desc: home().__bp.element.describe(n), offset: offsetIn(n, x, y) };
      }
    }
    return null;
  }

  // A custom select widget in use (resources/js/choose.js): from the pointer-down or focus that began it, what
  // the person does in it (the click that opened it, typing in its search box, Enter) is one choice: `select`
  // with the option's text, the widget (`loc`) and the native <select> it keeps in step (`native`), sent with
  // `from`, when the widget's use began: the recording replaces the steps sent since by this one step.
  let widget = null;         // {from, combo, container, t}
  let picked = null;         // {el, at}: the option just picked with the pointer (the click that follows is its end)

  function widgetBegins(el, event) {
    const C = chooser();
    if (!C || !el) return;
    if (widget && (C.optionAt(el) || widget.container.contains(el) || C.inList(el))) return;  // the same widget
    // The focus a widget moves itself as it opens (into its search box) is still its use.
    if (widget && event.type === 'focusin' && performance.now() - widget.at < 1000) return;
    const found = C.comboOf(el);
    if (!found) { widget = null; return; }
    const trigger = C.triggerOf(found.combo, found.container) || found.combo;
    let t = describeTarget(trigger);
    if (trigger !== found.combo) {
      // A combobox too small to click (a 2px input inside the box a person clicks) still has the name assistive
      // technology reads and a locator of its own, where the box around it often has neither: the widget is
      // named by its combobox, and replay opens it through the box around it (choose.js `trigger`).
      const named = describeTarget(found.combo);
      if (named.loc && named.loc.unique && named.name && !(t.loc && t.loc.unique && t.name)) t = named;
    }
    widget = { from: Math.max(now(), sent + 0.0005), at: performance.now(), combo: found.combo, container: found.container,
               t, before: C.shownOptions() };
  }

  function choose(option) {
    const C = chooser();
    const w = widget;
    widget = null;
    if (!C || !w || !w.t.loc) return false;
    const native = C.nativeOf(w.combo) || C.nativeOf(w.container);
    const step = { kind: 'select', widget: true, from: w.from, loc: w.t.loc, desc: w.t.desc, role: 'combobox',
                   name: w.t.name, option: C.textOf(option) };
    if (native) {
      const n = describeTarget(native);
      const label = native.labels && native.labels[0] ? C.textOf(native.labels[0]) : '';
      if (n.loc) Object.assign(step, { native: n.loc, name: label || n.name || step.name });
    }
    send(step);
    return true;
  }

  /** A person's action that no locator can find again: reported, so that the recording keeps it marked (a
   * workflow must not save as complete without it). */
  function missed(action, t, why) {
    send({ kind: 'blocked', action, why, desc: t.desc, role: t.role, name: t.name,
           loc: t.loc && t.loc.fingerprint ? { fingerprint: t.loc.fingerprint } : undefined });
  }

  // A click on a <label> makes the browser click its control in the same gesture (the label's activation): that
  // second click is not the person's, and recording it would toggle a checkbox twice on replay.
  let forwardedTo = null;   // the control the label click just recorded will receive a click on

  let pending = null;        // the element of the last pointer-down, with its locator taken then
  let enterAt = -1e9;        // when Enter was last pressed: the click it makes (implicit submission) is its own
  const fields = new WeakMap();  // text field -> its target, taken at its first key-down / pointer-down

  function pointed(el) {
    if (pending && pending.el === el) return pending;
    return describeTarget(el);
  }

  function onPointerDown(event) {
    if (!event.isTrusted) return;
    const gen = generator();
    pending = null;
    picked = null;
    goneAt = 0;
    if (!gen) return;
    widgetBegins(target(event), event);
    const C = chooser();
    // An option of the list the widget opened (not what it shows while closed, which may be an option too).
    const option = C && widget ? C.optionAt(target(event)) : null;
    if (option && !widget.before.has(option) && event.button === 0 && choose(option)) {
      picked = { el: option, at: performance.now() };
      pending = null;
      return;
    }
    const stood = fieldOfEditor(target(event));  // a click into an editor is a click into the field it stands for
    const el = stood ? stood.field : gen.interactive(target(event));
    if (!el) return;
    pending = describeTarget(el);
    if (isTextField(el) && !fields.has(el)) fields.set(el, pending);
    if (pending.loc) startDrag(event, el);
  }

  let drag = null;          // the left button is down: {el, t, x, y, moved}
  let dragged = false;      // a drag just ended: the click that follows is part of it

  function startDrag(event, el) {
    drag = null;
    dragged = false;
    if (event.button !== 0 || el.localName === 'select' || (el.localName === 'input' && el.type === 'range')) return;
    // Dragging in a text field selects text: neither that nor the click after it is a step.
    drag = { el, t: pending, x: event.clientX, y: event.clientY, moved: false, text: isTextField(el) };
  }

  function onPointerMove(event) {
    if (!drag || drag.moved || !event.isTrusted) return;
    if (Math.abs(event.clientX - drag.x) > DRAG_MIN_PX || Math.abs(event.clientY - drag.y) > DRAG_MIN_PX) {
      drag.moved = true;
    }
  }

  // The element the pointer went down on left the page before the button came up (a list's item the page
  // removes as it takes it on mousedown): the browser then gives the click to a container that stayed, or fires
  // none. The click is the gone element's, recorded when the button comes up with the locator taken when the
  // pointer went down; a click that follows in the same gesture is not a step.
  let goneAt = 0;

  function onPointerUp(event) {
    const d = drag;
    drag = null;
    if (!event.isTrusted) return;
    if (!(d && d.moved) && pending && pending.loc && !pending.el.isConnected) {
      const t = pending;
      pending = null;
      goneAt = performance.now();
      sendClick(t.el, t, event);
      return;
    }
    if (!d || !d.moved || event.button !== 0) return;
    dragged = true;
    const selection = d.el.ownerDocument.getSelection();
    if (d.text || (selection && !selection.isCollapsed && String(selection).trim())) return;  // selecting text
    const step = { kind: 'drag', loc: d.t.loc, desc: d.t.desc, role: d.t.role, name: d.t.name,
                   offset: offsetIn(d.el, d.x, d.y), dx: event.clientX - d.x, dy: event.clientY - d.y };
    if (!d.t.loc.unique || !step.offset) {
      const around = fallback(d.el, d.x, d.y);
      if (!around) { missed('drag', d.t, unfound(d.t, d.el)); return; }
      Object.assign(step, { loc: around.loc, desc: around.desc, offset: around.offset, fallback: true });
    }
    send(step);
  }

  function onKeyUp(event) {
    if (event.isTrusted && event.key === MARK_KEY) { flushFill(); send({ kind: 'mark' }); }  // typing before it too
  }

  function onClick(event) {
    if (!event.isTrusted) return;
    if (picked && performance.now() - picked.at < 1500) {   // the click that ends the pick of an option
      const t = target(event);
      // The pointer's click (its gesture began on the option: the browser gives it to what stayed of the page
      // when the list closed), or one that lands on the option or nowhere.
      const part = event.detail > 0 || !t.isConnected || t === document.body || t === document.documentElement ||
        picked.el.contains(t);
      picked = null;
      if (part) return;
    }
    if (dragged && event.type === 'click') { dragged = false; if (event.detail > 0) return; }  // a drag's end
    if (goneAt) { const late = performance.now() - goneAt < 1500; goneAt = 0; if (late && event.detail > 0) return; }
    const gen = generator();
    if (!gen) { send({ kind: 'blocked', why: describeTarget(null).blocked }); return; }
    const hit = target(event);
    if (forwardedTo && hit === forwardedTo) { forwardedTo = null; return; }   // the label's activation
    const stood = fieldOfEditor(hit);
    const el = stood ? stood.field : gen.interactive(hit);
    if (!el || el.localName === 'option') return;
    if (el.localName === 'select' && event.button === 0) return;   // the select step is the change
    const label = event.button === 0 && hit.closest ? hit.closest('label') : null;
    if (label && label.control === el && el !== hit && !el.contains(hit)) {
      forwardedTo = el;     // the browser clicks it right after this event, in the same task
      setTimeout(() => { if (forwardedTo === el) forwardedTo = null; }, 0);
    }
    if (event.detail === 0 && performance.now() - enterAt < 1000) return;  // made by the Enter just pressed
    sendClick(el, pointed(el), event);
  }

  /** A click on `el` ({loc, desc, role, name} in `t`); where no locator finds it alone, a point inside the nearest
   *  ancestor one does (`fallback`), or nothing and a note. */
  function sendClick(el, t, event) {
    const step = { kind: 'click', button: ['left', 'middle', 'right'][event.button] || 'left',
                   detail: event.detail || 1, control: control(el), loc: t.loc, desc: t.desc, role: t.role,
                   name: t.name };
    if (el.localName === 'input' && el.type === 'range') step.offset = offsetIn(el, event.clientX, event.clientY);
    if (!t.loc.unique) {
      const around = fallback(el, event.clientX, event.clientY);
      if (!around) { missed('click', t, unfound(t, el)); return; }
      Object.assign(step, { loc: around.loc, desc: around.desc, offset: around.offset, fallback: true });
    }
    send(step);
  }

  function onKeyDown(event) {
    if (!event.isTrusted || ['Shift', 'Control', 'Alt', 'Meta', 'AltGraph', 'CapsLock'].includes(event.key)) return;
    const gen = generator();
    if (!gen) return;
    const el = gen.interactive(target(event));
    const mods = ['ctrl', 'alt', 'meta'].filter((m) => event[m + 'Key']);
    const text = el && isTextField(el);
    if (text && !fields.has(el)) fields.set(el, describeTarget(el));
    if (event.key === 'Enter') {
      enterAt = performance.now();
      const C = chooser();
      const option = C && widget ? C.activeOption(target(event)) : null;
      if (option && !mods.length && choose(option)) return;   // Enter on the option the list points at
    }
    const key = NAMED[event.key] || (event.key.length === 1 ? event.key.toLowerCase() : event.key.toLowerCase());
    const plain = !mods.length && event.key.length === 1;   // text: part of a fill
    if (plain && event.key !== ' ') return;
    if (event.key === ' ' && !mods.length && (text || (el && el.localName !== 'body'))) return;  // text, or a click
    if (text && !mods.length && EDIT_KEYS.has(event.key)) return;
    if (text && mods.length === 1 && mods[0] === 'ctrl' && EDIT_SHORTCUTS.has(key)) return;
    if (text && event.key === 'Enter' && el.localName === 'textarea' && !mods.length) return;
    if (el && el.localName === 'select' && !mods.length && (EDIT_KEYS.has(event.key) || event.key.length === 1)) return;
    if (!mods.length && !NAMED[event.key] && !/^F\d+$/.test(event.key)) return;
    const shortcut = [...mods, ...(event.shiftKey && (mods.length || NAMED[event.key]) ? ['shift'] : []), key].join('+');
    send({ kind: 'press', shortcut });
  }

  // Typing into one field is one message per burst, not per key: the field's fill is sent when something
  // else happens (a non-typing key, a pointer-down, a click, a change, the page hiding) or FILL_IDLE_MS after
  // the last key. A paste is sent at once (it is its own step).
  const FILL_IDLE_MS = 150;
  let typed = null;          // {el, paste, timer}: a field typed into whose fill is not sent yet

  function flushFill() {
    if (!typed) return;
    const { el, paste, at } = typed;
    clearTimeout(typed.timer);
    typed = null;
    sendFill(el, paste, at);
  }

  /** The field's fill step; `at`: when its last input happened (epoch ms), for telling the person's typing
   * from the app's when the message arrives after an operation began. */
  function sendFill(el, paste, at) {
    const gen = generator();
    if (!gen) return;
    let t = fields.get(el);
    if (!t) { t = describeTarget(el); fields.set(el, t); }
    const step = { kind: 'fill', loc: t.loc, desc: t.desc, role: t.role, name: t.name, paste,
                   variable: variableName(el, gen), at };
    const editor = editors.get(el);
    if (isSecret(el)) step.secret = true;
    else if (editor) step.value = editorText(editor);
    else step.value = el.isContentEditable && el.localName !== 'input' && el.localName !== 'textarea'
      ? el.innerText : el.value;
    send(step);
  }

  function onInput(event) {
    if (!event.isTrusted) return;
    const typedInto = target(event);
    const stood = fieldOfEditor(typedInto);
    if (stood) editors.set(stood.field, stood.host);
    const el = stood ? stood.field : typedInto;
    if (!stood && !isTextField(el)) return;
    if (!generator()) { send({ kind: 'blocked', why: 'typing in a cross-origin frame cannot be recorded' }); return; }
    const paste = event.inputType === 'insertFromPaste';
    if (typed && (typed.el !== el || typed.paste !== paste || paste)) flushFill();
    const at = performance.timeOrigin + event.timeStamp;
    if (paste) { sendFill(el, true, at); return; }
    if (!typed) typed = { el, paste: false, timer: 0, at };
    typed.at = at;
    clearTimeout(typed.timer);
    typed.timer = setTimeout(flushFill, FILL_IDLE_MS);
  }

  /** A key that goes on typing into the field being typed into (its fill can wait). */
  const typing = (event) => !!typed && (target(event) === typed.el || !!editors.get(typed.el)?.contains(target(event))) &&
    !event.ctrlKey && !event.altKey &&
    !event.metaKey && (event.key.length === 1 || EDIT_KEYS.has(event.key) ||
                       ['Shift', 'CapsLock', 'AltGraph'].includes(event.key));

  function onChange(event) {
    if (!event.isTrusted) return;
    const el = target(event);
    if (!el || el.localName !== 'select') return;
    const t = pending && pending.el === el ? pending : describeTarget(el);
    if (!t.loc) { missed('select', t, t.blocked); return; }
    const option = el.selectedOptions[0];
    send({ kind: 'select', loc: t.loc, desc: t.desc, role: t.role, name: t.name,
           option: option ? option.text.replace(/\s+/g, ' ').trim() : '' });
  }

  // Wheel scrolling is reported when the next action begins (or the page hides), with `loaded`: whether the page
  // grew meanwhile (an infinite list, a lazy page). Scrolling that only brought the next target into view is not
  // a step (acting on an element scrolls it into view), so the recording keeps only scrolls that loaded content.
  let wheel = null;
  const pageHeight = () => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
  function onWheel(event) {
    if (!event.isTrusted) return;
    const vertical = Math.abs(event.deltaY) >= Math.abs(event.deltaX);
    const delta = vertical ? event.deltaY : event.deltaX;
    if (!delta) return;
    const direction = vertical ? (delta > 0 ? 'down' : 'up') : (delta > 0 ? 'right' : 'left');
    if (wheel && wheel.direction !== direction) flushWheel();
    if (!wheel) {
      wheel = { direction, distance: 0, height: pageHeight(), added: 0, observer: null };
      const burst = wheel;
      burst.observer = new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) burst.added += 1;
      });
      burst.observer.observe(document, { childList: true, subtree: true });
    }
    wheel.distance += Math.abs(delta);
  }
  function flushWheel() {
    if (!wheel) return;
    const { direction, distance, height, added, observer } = wheel;
    observer.disconnect();
    wheel = null;
    send({ kind: 'scroll', direction, distance: Math.round(distance), loaded: pageHeight() > height || added >= 3 });
  }
  // A pending scroll belongs before the next action.
  const flushing = (handler) => (event) => {
    if (event.isTrusted && event.type !== 'wheel') {
      if (!(event.type === 'keydown' && typing(event))) flushFill();
      flushWheel();
    }
    handler(event);
  };

  const options = { capture: true, passive: true };
  // `change` is not composed: inside a shadow root it never reaches the window. Each open shadow root the person
  // reaches (the roots on an event's composed path) gets its own listener, once.
  const watched = new WeakSet();
  const onShadowChange = flushing(onChange);
  const watchRoots = (event) => {
    if (!event.isTrusted || !event.composedPath) return;
    for (const n of event.composedPath()) {
      if (n instanceof ShadowRoot && !watched.has(n)) {
        watched.add(n);
        n.addEventListener('change', onShadowChange, options);
      }
    }
  };
  for (const type of ['pointerdown', 'keydown', 'focusin']) window.addEventListener(type, watchRoots, options);
  window.addEventListener('pointerdown', flushing(onPointerDown), options);
  window.addEventListener('pointermove', onPointerMove, options);
  window.addEventListener('pointerup', onPointerUp, options);
  window.addEventListener('keyup', onKeyUp, options);
  window.addEventListener('click', flushing(onClick), options);
  window.addEventListener('auxclick', flushing(onClick), options);
  window.addEventListener('keydown', flushing(onKeyDown), options);
  window.addEventListener('input', onInput, options);
  window.addEventListener('change', flushing(onChange), options);
  window.addEventListener('pagehide', () => { flushFill(); flushWheel(); }, options);
  window.addEventListener('blur', (event) => { if (typed && event.target === typed.el) flushFill(); }, options);
  window.addEventListener('wheel', onWheel, options);
  window.addEventListener('focusin', (event) => {   // into a widget by the keyboard (Tab)
    if (event.isTrusted) widgetBegins(target(event), event);
  }, options);
})
