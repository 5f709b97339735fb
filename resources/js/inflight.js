// BrowserPilot: what a page the app acts on still has in flight, and whether the work an action started is
// over. Runs at document creation in every frame of such a page, in the page's own (main) world, because that
// is where the page calls fetch, XMLHttpRequest, sendBeacon, WebSocket, EventSource, setTimeout and
// requestAnimationFrame. app/browser/inflight.py asks each frame for `state()` until the tab has settled.
//
// - In flight: fetch and XHR until answered, the answer's body while the page reads it (json(), text()…),
//   beacons until the browser lists them as done, WebSockets until they open, a message the action sent on a
//   WebSocket until the socket answers (at most REPLY_MS: many messages get no answer), and an event stream
//   the action opened (EventSource, or fetch answered with text/event-stream) until it is closed by the page
//   or ended by the server (a queue's answer streamed).
// - The action's own work: the input's task, and what it set off — timers of at most HORIZON_MS and animation
//   frames it asked for, the answers of requests it sent, and so on down the chain, for HORIZON_MS from where
//   the chain started. A timer the action set is work until it has run (a debounce, an animation, the
//   framework's next tick): what it then sends is in flight in turn.
// - Activity: an activation (a click that is not just focusing a text field, Enter, a change of a choice), a
//   request of the action's sent or answered, a message sent. The app waits for a quiet moment after the last
//   one, for what it cannot see (a database of the page, a message port).
// - A request is the action's own (`own`) when the action's chain sent it, or when it writes (not GET, HEAD or
//   OPTIONS) and started after the last input: what the run must not cut off.
// - Workers: their requests are not visible here. Creating one (or a page controlled by a service worker)
//   is told to the app once, on the console with the random KEY, and the app watches them over DevTools.
//
// The wrappers are proxies of the browser's own functions: they keep their names, lengths and native source
// text. `form.submit()` also tells the isolated world (resources/js/document.js) that a submission is planned,
// since it fires no `submit` event. The state lives under a property whose name is random per app (KEY), and
// never changes what the page sends or receives.
(() => {
  const KEY = '__BP_INFLIGHT_KEY__';
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  const HORIZON_MS = 2000;
  const REPLY_MS = 2000;
  const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
  const later = window.setTimeout.bind(window);  // our own bookkeeping runs on the browser's own timer
  const tell = console.debug.bind(console);
  const pending = new Map();
  const work = new Map();  // the action's timers and frames not run yet: key -> true
  let next = 0;
  let inputAt = 0;      // Date.now() of the last input a person (or the app) gave this document
  let activeAt = 0;     // … of the last activity
  let chain = 0;        // while the action's work runs: when its chain started; 0 otherwise
  let leaving = false;

  const now = () => Date.now();
  const touch = () => { activeAt = now(); };
  // Run the rest of this task, and the promise reactions it ends with, as the action's work.
  const enter = (since) => {
    if (!since || now() - since > HORIZON_MS) return;
    chain = Math.max(chain, since);
    if (!leaving) {
      leaving = true;
      later(() => { leaving = false; chain = 0; }, 0);
    }
  };
  const absolute = (url) => {
    try { return new URL(String(url), document.baseURI).href; } catch (e) { return String(url); }
  };
  const begin = (kind, method, url, extra) => {
    const id = ++next;
    const verb = String(method || 'GET').toUpperCase();
    const item = {kind, method: verb, url: absolute(url), since: now(), chain,
                  own: !!chain || (!SAFE.has(verb) && now() >= inputAt), ...extra};
    pending.set(id, item);
    if (item.own) touch();
    return id;
  };
  const end = (id) => {
    const item = pending.get(id);
    if (!item) return;
    pending.delete(id);
    if (item.own) {
      touch();
      enter(item.chain || now());
    }
  };
  const wrap = (owner, name, apply) => {
    const original = owner && owner[name];
    if (typeof original !== 'function') return;
    try { owner[name] = new Proxy(original, {apply: (target, self, args) => apply(target, self, args)}); } catch (e) {}
  };
  const wrapClass = (name, made) => {
    const original = window[name];
    if (typeof original !== 'function') return;
    try {
      const proxy = new Proxy(original, {
        construct: (target, args, newTarget) => made(Reflect.construct(target, args, newTarget)),
      });
      window[name] = proxy;
      Object.defineProperty(original.prototype, 'constructor', {value: proxy, writable: true, configurable: true});
    } catch (e) {}
  };

  // -- input: the action starts here -------------------------------------------------------------------
  const NOT_TEXT = /^(button|submit|reset|image|checkbox|radio|file|range|color)$/i;
  const editable = (element) => !!element && (element.isContentEditable || element.localName === 'textarea' ||
                                              (element.localName === 'input' && !NOT_TEXT.test(element.type)));
  const activation = (event) => {
    const target = event.composedPath ? event.composedPath()[0] : event.target;
    switch (event.type) {
      case 'click': case 'auxclick': case 'dblclick': case 'contextmenu': case 'change':
        return !editable(target);
      case 'keydown':
        return event.key === 'Enter' || (event.key === ' ' && !editable(target)) ||
          ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.length === 1);
      case 'submit': case 'drop':
        return true;
      default:
        return false;
    }
  };
  const onInput = (event) => {
    if (!event.isTrusted) return;
    if (event.type === 'keyup' && (event.key === 'Shift' || event.key === 'F24')) return;  // the app's fence, mark
    inputAt = now();
    chain = 0;
    enter(inputAt);
    if (activation(event)) touch();
  };
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick',
                      'contextmenu', 'keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'change', 'submit',
                      'touchstart', 'touchend', 'paste', 'drop']) {
    window.addEventListener(type, onInput, true);
  }

  // -- the action's timers and frames ------------------------------------------------------------------
  const timer = (repeat) => (target, self, args) => {
    const [callback, delay] = args;
    const since = chain;
    if (!since || typeof callback !== 'function' || Number(delay || 0) > HORIZON_MS) {
      return Reflect.apply(target, self, args);
    }
    let key = null;
    const run = function (...rest) {
      if (work.delete(key) || !repeat) enter(since);  // an interval is the action's until its first run
      return Reflect.apply(callback, this, rest);
    };
    key = 't' + Reflect.apply(target, self, [run, ...args.slice(1)]);
    work.set(key, true);
    return Number(key.slice(1));
  };
  wrap(window, 'setTimeout', timer(false));
  wrap(window, 'setInterval', timer(true));
  const clear = (kind) => (target, self, args) => {
    work.delete(kind + args[0]);
    return Reflect.apply(target, self, args);
  };
  wrap(window, 'clearTimeout', clear('t'));
  wrap(window, 'clearInterval', clear('t'));
  wrap(window, 'requestAnimationFrame', (target, self, args) => {
    const [callback] = args;
    const since = chain;
    // A hidden page paints no frames: its frame callbacks wait for it to be shown, which a run does not.
    if (!since || typeof callback !== 'function' || document.visibilityState !== 'visible') {
      return Reflect.apply(target, self, args);
    }
    let key = null;
    const run = function (...rest) {
      work.delete(key);
      enter(since);
      return Reflect.apply(callback, this, rest);
    };
    key = 'f' + Reflect.apply(target, self, [run]);
    work.set(key, true);
    return Number(key.slice(1));
  });
  wrap(window, 'cancelAnimationFrame', clear('f'));

  // -- requests ----------------------------------------------------------------------------------------
  const answers = new WeakMap();  // a fetch's Response -> its request, while the page may read its body
  // An event stream the action's chain opened with fetch (a queue's answer, as fetch-event-stream and the
  // like read it): in flight until it ends or the page aborts it. We read a copy of it (its data is small, and
  // the page reads its own).
  const streamed = (response, item) => {
    const type = response.headers.get('content-type') || '';
    if (!item.chain || !response.body || !/^text\/event-stream/i.test(type)) return;
    let copy;
    try { copy = response.clone(); } catch (e) { return; }
    const id = begin('eventsource', item.method, item.url);
    Object.assign(pending.get(id), {own: true, chain: item.chain});
    const reader = copy.body.getReader();
    const pump = () => reader.read().then(({done}) => {
      if (done) {
        end(id);
        return;
      }
      touch();
      pump();
    }, () => end(id));
    pump();
  };
  wrap(window, 'fetch', (target, self, args) => {
    const [input, init] = args;
    const request = input instanceof Request ? input : null;
    const id = begin('fetch', (init && init.method) || (request && request.method), request ? request.url : input);
    const item = pending.get(id);
    let promise;
    try { promise = Reflect.apply(target, self, args); } catch (e) { end(id); throw e; }
    Promise.resolve(promise).then((response) => {
      answers.set(response, item);
      streamed(response, item);
      end(id);
    }, () => end(id));
    return promise;
  });
  for (const name of ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text']) {
    wrap(window.Response && Response.prototype, name, (target, self, args) => {
      const item = answers.get(self);
      const promise = Reflect.apply(target, self, args);
      if (item) {
        answers.delete(self);
        const id = begin('fetch', item.method, item.url);
        Object.assign(pending.get(id), {own: item.own, chain: item.chain});
        Promise.resolve(promise).then(() => end(id), () => end(id));
      }
      return promise;
    });
  }

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

  // -- WebSocket and EventSource -----------------------------------------------------------------------
  wrapClass('WebSocket', (socket) => {
    const id = begin('websocket', 'GET', socket.url);
    socket.addEventListener('open', () => end(id), {once: true});
    socket.addEventListener('close', () => end(id), {once: true});
    return socket;
  });
  const awaiting = new WeakMap();  // socket -> ids of the action's messages waiting for the socket's answer
  const answered = (socket) => {
    for (const id of awaiting.get(socket) || []) end(id);
    awaiting.delete(socket);
  };
  wrap(window.WebSocket && WebSocket.prototype, 'send', (target, self, args) => {
    const result = Reflect.apply(target, self, args);
    if (chain) {
      const id = begin('websocket', 'SEND', self.url, {until: now() + REPLY_MS, socket: self});
      if (!awaiting.has(self)) {
        awaiting.set(self, []);
        self.addEventListener('message', () => answered(self), {once: true});
        self.addEventListener('close', () => answered(self), {once: true});
      }
      awaiting.get(self).push(id);
    }
    return result;
  });
  const streams = new WeakMap();  // the action's EventSource -> its id
  wrapClass('EventSource', (source) => {
    if (!chain) return source;  // a stream the page keeps open (news, presence) is not the action's
    const id = begin('eventsource', 'GET', source.url);
    streams.set(source, id);
    source.addEventListener('message', () => {
      const item = pending.get(id);
      if (item) { touch(); enter(item.chain); }
    });
    source.addEventListener('error', () => end(id));  // closed, or ended by the server
    return source;
  });
  wrap(window.EventSource && EventSource.prototype, 'close', (target, self, args) => {
    const result = Reflect.apply(target, self, args);
    if (streams.has(self)) end(streams.get(self));
    return result;
  });

  // -- workers: watched by the app -----------------------------------------------------------------------
  let told = false;
  const workers = () => {
    if (!told) { told = true; tell(KEY + ':workers'); }
  };
  for (const name of ['Worker', 'SharedWorker']) wrapClass(name, (worker) => { workers(); return worker; });
  if (navigator.serviceWorker) {
    if (navigator.serviceWorker.controller) workers();
    wrap(ServiceWorkerContainer.prototype, 'register', (target, self, args) => {
      workers();
      return Reflect.apply(target, self, args);
    });
  }

  wrap(HTMLFormElement.prototype, 'submit', (target, self, args) => {
    try { self.dispatchEvent(new CustomEvent('browserpilot:submit', {bubbles: true, composed: true})); } catch (e) {}
    return Reflect.apply(target, self, args);
  });

  // What this document has in flight, and how busy it is (the app asks every frame).
  const state = () => {
    const at = now();
    const items = [];
    for (const [id, item] of pending) {
      if (item.until !== undefined && at > item.until && !(item.socket.bufferedAmount > 0)) {
        pending.delete(id);  // no answer came: the message needed none
        continue;
      }
      items.push({kind: item.kind, method: item.method, url: item.url, ms: at - item.since, own: item.own});
    }
    return {items, work: work.size, inputAgo: inputAt ? at - inputAt : null,
            activeAgo: activeAt ? at - activeAt : null};
  };
  Object.defineProperty(window, KEY, {value: Object.freeze({state}), enumerable: false});
})();
