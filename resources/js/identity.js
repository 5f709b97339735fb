// An environment's time zone and geolocation, as its pages see them (app/browser/identity.py). Runs in the
// main world at the creation of every document, before the page's own scripts; the Python side puts the
// environment's settings in place of __BROWSERPILOT_IDENTITY__: {timezone: "Area/City" | "", geolocation:
// {latitude, longitude, accuracy} | null}.
(() => {
  const config = __BROWSERPILOT_IDENTITY__;
  const define = (target, name, value) => {
    Object.defineProperty(target, name, { value, configurable: true, writable: true, enumerable: false });
  };
  // A replacement is a proxy of the browser's own function (its name and length stay), and its source text
  // is the original's: Function.prototype.toString answers for the original.
  const originals = new WeakMap();
  const proxy = (original, traps) => {
    const made = new Proxy(original, traps);
    originals.set(made, original);
    return made;
  };
  const replace = (owner, name, implementation) => {
    define(owner, name, proxy(owner[name], { apply: (target, self, args) => implementation.apply(self, args) }));
  };
  const sourceText = Function.prototype.toString;
  replace(Function.prototype, 'toString', function () { return sourceText.call(originals.get(this) || this); });

  if (config.timezone) {
    const zone = config.timezone;
    const NativeDate = Date;
    const NativeFormat = Intl.DateTimeFormat;
    const proto = NativeDate.prototype;
    const utc = {};
    for (const name of ['getTime', 'getUTCFullYear', 'getUTCMonth', 'getUTCDate', 'getUTCDay', 'getUTCHours',
      'getUTCMinutes', 'getUTCSeconds', 'getUTCMilliseconds', 'setTime', 'toLocaleString', 'toLocaleDateString',
      'toLocaleTimeString']) utc[name] = proto[name];
    const parts = new NativeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric',
      day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short' });
    const longName = new NativeFormat('en-US', { timeZone: zone, timeZoneName: 'long' });
    // Minutes to add to local time to get UTC at instant t (Date.prototype.getTimezoneOffset's sign).
    const offsetNow = (t) => {
      const seconds = Math.floor(t / 1000) * 1000;
      const p = {};
      for (const { type, value } of parts.formatToParts(seconds)) p[type] = value;
      let year = Number(p.year);
      if (p.era === 'BC' || p.era === 'B') year = 1 - year;
      const wall = NativeDate.UTC(year, Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute),
        Number(p.second));
      return (seconds - wall) / 60000;
    };
    // Offsets change on quarter hours (UTC): one per quarter hour is remembered, unless it changes inside it.
    const QUARTER = 15 * 60 * 1000;
    const known = new Map();
    const offsetAt = (t) => {
      if (!Number.isFinite(t)) return NaN;
      const quarter = Math.floor(t / QUARTER);
      let offset = known.get(quarter);
      if (offset === undefined) {
        const first = offsetNow(quarter * QUARTER);
        offset = first === offsetNow(quarter * QUARTER + QUARTER - 1) ? first : null;
        if (known.size > 10000) known.clear();
        known.set(quarter, offset);
      }
      return offset === null ? offsetNow(t) : offset;
    };
    const shifted = (date) => {
      const t = utc.getTime.call(date);
      return new NativeDate(t - offsetAt(t) * 60000);
    };
    // Local wall time (as if UTC) -> the instant, across offset changes.
    const instantOf = (wall) => {
      let t = wall + offsetAt(wall) * 60000;
      t = wall + offsetAt(t) * 60000;
      return t;
    };

    const withZone = (options) => {
      const given = options === undefined ? {} : Object(options);
      return given.timeZone === undefined ? { ...given, timeZone: zone } : given;
    };
    const ZonedFormat = proxy(NativeFormat, {
      construct: (target, [locales, options], newTarget) => Reflect.construct(target, [locales, withZone(options)],
        newTarget),
      apply: (target, self, [locales, options]) => Reflect.construct(target, [locales, withZone(options)]),
    });
    define(NativeFormat.prototype, 'constructor', ZonedFormat);
    define(Intl, 'DateTimeFormat', ZonedFormat);
    for (const name of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
      const original = utc[name];
      replace(proto, name, function (locales, options) { return original.call(this, locales, withZone(options)); });
    }
    replace(proto, 'getTimezoneOffset', function () { return offsetAt(utc.getTime.call(this)); });
    const getters = { getFullYear: 'getUTCFullYear', getMonth: 'getUTCMonth', getDate: 'getUTCDate',
      getDay: 'getUTCDay', getHours: 'getUTCHours', getMinutes: 'getUTCMinutes', getSeconds: 'getUTCSeconds',
      getMilliseconds: 'getUTCMilliseconds' };
    for (const [local, universal] of Object.entries(getters)) {
      const read = utc[universal];
      replace(proto, local, function () { return read.call(shifted(this)); });
    }
    replace(proto, 'getYear', function () { return utc.getUTCFullYear.call(shifted(this)) - 1900; });
    for (const local of ['setFullYear', 'setMonth', 'setDate', 'setHours', 'setMinutes', 'setSeconds',
      'setMilliseconds']) {
      const universal = proto[local.replace('set', 'setUTC')];
      replace(proto, local, function (...args) {
        const wall = shifted(this);
        universal.apply(wall, args);
        return utc.setTime.call(this, instantOf(utc.getTime.call(wall)));
      });
    }
    const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const pad = (n, width = 2) => String(n).padStart(width, '0');
    const dateText = (d) => {
      const year = utc.getUTCFullYear.call(d);
      const shown = year < 0 ? `-${pad(-year, 6)}` : pad(year, 4);
      return `${days[utc.getUTCDay.call(d)]} ${months[utc.getUTCMonth.call(d)]} ${pad(utc.getUTCDate.call(d))} ${shown}`;
    };
    const timeText = (date, d) => {
      const offset = -offsetAt(utc.getTime.call(date));
      const sign = offset < 0 ? '-' : '+';
      const hours = Math.floor(Math.abs(offset) / 60);
      const minutes = Math.abs(offset) % 60;
      let name = '';
      for (const { type, value } of longName.formatToParts(utc.getTime.call(date))) {
        if (type === 'timeZoneName') name = value;
      }
      return `${pad(utc.getUTCHours.call(d))}:${pad(utc.getUTCMinutes.call(d))}:${pad(utc.getUTCSeconds.call(d))} `
        + `GMT${sign}${pad(hours)}${pad(minutes)}` + (name ? ` (${name})` : '');
    };
    const invalid = (date) => Number.isNaN(utc.getTime.call(date));
    replace(proto, 'toString', function () {
      if (invalid(this)) return 'Invalid Date';
      const d = shifted(this);
      return `${dateText(d)} ${timeText(this, d)}`;
    });
    replace(proto, 'toDateString', function () {
      return invalid(this) ? 'Invalid Date' : dateText(shifted(this));
    });
    replace(proto, 'toTimeString', function () {
      return invalid(this) ? 'Invalid Date' : timeText(this, shifted(this));
    });
    // new Date(y, m, ...) reads its components as local time; Date() (called) is the local time as text.
    const ZonedDate = proxy(NativeDate, {
      construct(target, args, newTarget) {
        if (args.length < 2) return Reflect.construct(target, args, newTarget);
        const wall = NativeDate.UTC(...args);
        return Reflect.construct(target, [Number.isNaN(wall) ? NaN : instantOf(wall)], newTarget);
      },
      apply() { return proto.toString.call(new NativeDate()); },
    });
    define(proto, 'constructor', ZonedDate);
    define(globalThis, 'Date', ZonedDate);
  }

  if (config.geolocation && typeof Geolocation !== 'undefined') {
    const where = config.geolocation;
    const position = () => {
      const coords = Object.create(GeolocationCoordinates.prototype);
      const values = { latitude: where.latitude, longitude: where.longitude, accuracy: where.accuracy,
        altitude: null, altitudeAccuracy: null, heading: null, speed: null };
      for (const [key, value] of Object.entries(values)) {
        Object.defineProperty(coords, key, { value, enumerable: true });
      }
      define(coords, 'toJSON', () => ({ ...values }));
      const result = Object.create(GeolocationPosition.prototype);
      const timestamp = Date.now();
      Object.defineProperty(result, 'coords', { value: coords, enumerable: true });
      Object.defineProperty(result, 'timestamp', { value: timestamp, enumerable: true });
      define(result, 'toJSON', () => ({ coords: coords.toJSON(), timestamp }));
      return result;
    };
    let nextWatch = 1;
    const watches = new Set();
    const gproto = Geolocation.prototype;
    const callback = (method, success) => {
      if (typeof success !== 'function') {
        throw new TypeError(`Failed to execute '${method}' on 'Geolocation': parameter 1 is not of type 'Function'.`);
      }
    };
    replace(gproto, 'getCurrentPosition', (success) => {
      callback('getCurrentPosition', success);
      setTimeout(() => success(position()), 0);
    });
    replace(gproto, 'watchPosition', (success) => {
      callback('watchPosition', success);
      const id = nextWatch++;
      watches.add(id);
      setTimeout(() => { if (watches.has(id)) success(position()); }, 0);
      return id;
    });
    replace(gproto, 'clearWatch', (id) => { watches.delete(id); });
    if (typeof Permissions !== 'undefined') {
      const query = Permissions.prototype.query;
      replace(Permissions.prototype, 'query', function (descriptor) {
        if (descriptor && descriptor.name === 'geolocation') {
          const status = Object.create(PermissionStatus.prototype);
          Object.defineProperty(status, 'state', { value: 'granted', enumerable: true });
          Object.defineProperty(status, 'name', { value: 'geolocation', enumerable: true });
          Object.defineProperty(status, 'onchange', { value: null, writable: true, enumerable: true });
          return Promise.resolve(status);
        }
        return query.call(this, descriptor);
      });
    }
  }
})();
