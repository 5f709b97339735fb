// BrowserPilot: runs at document creation in every frame, in the app's isolated world.
// A fresh id per document lets the app tell a new document from the one it replaced.
window.__bpDocumentId = Date.now().toString(36) + Math.random().toString(36).slice(2);

// Navigations this document started, so that an action which started one waits until it has committed:
// - a form submission that the page did not cancel, from its `submit` event: it fires during the click (or
//   the Enter key) itself, while the navigation it plans starts in a task of its own a moment later (and
//   from `form.submit()`, which fires no such event, as resources/js/inflight.js tells). `submit` does not
//   leave a shadow root: every shadow root a trusted click or key goes through is listened to as well;
// - every other one (a link, `location = …`, `form.submit()`, the submission's own navigation), from the
//   Navigation API's `navigate` event. Same-document ones (fragments, pushState, an SPA router's intercept)
//   and downloads are not counted.
// One is pending while it was neither cancelled (preventDefault) nor turned into a same-document one
// (intercept moves the current history entry at once): the browser is about to load, or loading, the next
// document, which will replace this one.
(() => {
  const state = window.__bpNavigations = {started: 0, last: null, method: 'GET', event: null, entry: null, submit: null,
                                          at: 0};
  const entry = () => (window.navigation && window.navigation.currentEntry ? window.navigation.currentEntry.id : null);
  const selfTargeted = (form, submitter) => {
    if ((submitter && submitter.getAttribute('formmethod') || form.getAttribute('method') || '').toLowerCase() === 'dialog') {
      return false;
    }
    const base = document.querySelector('base[target]');
    const target = (submitter && submitter.getAttribute('formtarget')) || form.getAttribute('target') ||
      (base ? base.getAttribute('target') : '') || '';
    const name = target.toLowerCase();
    return name === '' || name === '_self' || ((name === '_top' || name === '_parent') && window === window.top);
  };
  const submitted = (event) => {
    if (event.target instanceof HTMLFormElement && selfTargeted(event.target, event.submitter || null)) {
      state.started += 1;
      state.last = event.target.action;
      const method = (event.submitter && event.submitter.getAttribute('formmethod')) || event.target.method;
      state.method = (method || 'get').toUpperCase();
      state.submit = event;
      state.at = performance.now();
    }
  };
  window.addEventListener('submit', submitted, true);
  // form.submit() fires no submit event: resources/js/inflight.js tells us, on pages the app acts on.
  window.addEventListener('browserpilot:submit', submitted, true);
  const roots = new WeakSet();
  const intoShadowRoots = (event) => {
    if (!event.isTrusted) return;
    for (const node of event.composedPath()) {
      if (node instanceof ShadowRoot && !roots.has(node)) {
        roots.add(node);
        node.addEventListener('submit', submitted, true);
      }
    }
  };
  for (const type of ['pointerdown', 'mousedown', 'click', 'keydown']) {
    window.addEventListener(type, intoShadowRoots, true);
  }
  if (window.navigation) {
    window.navigation.addEventListener('navigate', (event) => {
      state.submit = null;  // a planned submission has started (or another navigation replaced it)
      if (event.hashChange || event.downloadRequest !== null || event.destination.sameDocument) return;
      state.started += 1;
      state.last = event.destination.url;
      state.method = event.formData ? 'POST' : 'GET';
      state.event = event;
      state.entry = entry();
      state.at = performance.now();
    });
  }
  state.pending = () => (!!state.submit && !state.submit.defaultPrevented) ||
    (!!state.event && !state.event.defaultPrevented && entry() === state.entry);
  // How long ago the latest one was started (ms): the app gives the browser a moment to begin loading it,
  // and no more (a navigation that became a download, or that the browser dropped, leaves this document).
  state.age = () => performance.now() - state.at;
  state.clear = () => { state.event = null; state.submit = null; };  // the browser has dealt with it
})();
