// BrowserPilot: what a page the app acts on still has in flight. Runs at document creation in every frame
// of such a page, in the page's own (main) world, because that is where the page calls fetch,
// XMLHttpRequest and sendBeacon: each call is counted until its answer has arrived (a beacon, until the
// browser lists it as done), so that a run, a closed tab or a quitting app lets the last order post land.
// The wrappers are proxies of the browser's own functions: they keep their names, lengths and native
// source text. `form.submit()` also tells the isolated world (resources/js/document.js) that a
// submission is planned, since it fires no `submit` event. The state lives under a property whose name is
// random per app (KEY), and never changes what the page sends or receives.
(() => {
  const KEY = '__BP_INFLIGHT_KEY__';
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  const pending = new Map();
  let next = 0;
  const absolute = (url) => { try { return new URL(String(url), document.baseURI).href; } catch (e) { return String(url); } };
  const begin = (kind, method, url) => {
    const id = ++next;
    pending.set(id, {kind, method: String(method || 'GET').toUpperCase(), url: absolute(url), since: Date.now()});
    return id;
  };
  const end = (id) => { pending.delete(id); };
  const wrap = (owner, name, apply) => {
    const original = owner && owner[name];
    if (typeof original !== 'function') return;
    try { owner[name] = new Proxy(original, {apply: (target, self, args) => apply(target, self, args)}); } catch (e) {}
  };

  wrap(window, 'fetch', (target, self, args) => {
    const [input, init] = args;
    const request = input instanceof Request ? input : null;
    const id = begin('fetch', (init && init.method) || (request && request.method), request ? request.url : input);
    let promise;
    try { promise = Reflect.apply(target, self, args); } catch (e) { end(id); throw e; }
    Promise.resolve(promise).then(() => end(id), () => end(id));
    return promise;
  });

  const opened = new WeakMap();
  wrap(XMLHttpRequest.prototype, 'open', (target, self, args) => {
    opened.set(self, {method: args[0], url: args[1]});
    return Reflect.apply(target, self, args);
  });
  wrap(XMLHttpRequest.prototype, 'send', (target, self, args) => {
    const info = opened.get(self) || {};
    const id = begin('xhr', info.method, info.url);
    self.addEventListener('loadend', () => end(id), {once: true});
    try { return Reflect.apply(target, self, args); } catch (e) { end(id); throw e; }
  });

  const beacons = [];
  let observer = null;
  const watchBeacons = () => {
    if (observer || typeof PerformanceObserver !== 'function') return;
    observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.initiatorType !== 'beacon') continue;
        const index = beacons.findIndex((b) => b.url === entry.name);
        if (index >= 0) { end(beacons[index].id); beacons.splice(index, 1); }
      }
    });
    try { observer.observe({type: 'resource'}); } catch (e) { observer = null; }
  };
  wrap(Navigator.prototype, 'sendBeacon', (target, self, args) => {
    const queued = Reflect.apply(target, self, args);
    if (queued) {
      watchBeacons();
      const url = absolute(args[0]);
      beacons.push({id: begin('beacon', 'POST', url), url});
    }
    return queued;
  });

  wrap(HTMLFormElement.prototype, 'submit', (target, self, args) => {
    try { self.dispatchEvent(new CustomEvent('browserpilot:submit', {bubbles: true})); } catch (e) {}
    return Reflect.apply(target, self, args);
  });

  const list = () => {
    const now = Date.now();
    const found = [...pending.values()].map((item) => ({kind: item.kind, method: item.method, url: item.url,
                                                         ms: now - item.since}));
    for (let i = 0; i < window.frames.length; i++) {
      try {
        const child = window.frames[i][KEY];
        if (child) found.push(...child.list());
      } catch (e) {}  // another site's frame: not ours to read
    }
    return found;
  };
  Object.defineProperty(window, KEY, {value: Object.freeze({list}), enumerable: false});
})();
