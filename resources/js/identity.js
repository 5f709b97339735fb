// An environment's time zone and geolocation, as its pages see them (app/browser/identity.py). Runs in the
// main world at the creation of every document, before the page's own scripts; the Python side puts the
// environment's settings in place of __BROWSERPILOT_IDENTITY__: {timezone: "Area/City" | "", geolocation:
// {latitude, longitude, accuracy} | null}.
(() => {
  const config = __BROWSERPILOT_IDENTITY__;
  const native = new WeakSet();
  const nativeToString = Function.prototype.toString;
  const define = (target, name, value) => {
    Object.defineProperty(target, name, { value, configurable: true, writable: true, enumerable: false });
    if (typeof value === 'function') native.add(value);
  };
  // Our replacements read as native code, as the functions they replace did.
  define(Function.prototype, 'toString', function toString() {
    if (native.has(this)) return `function ${this.name}() { [native code] }`;
    return nativeToString.call(this);
  });

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
    const offsetAt = (t) => {
      if (!Number.isFinite(t)) return NaN;
      const seconds = Math.floor(t / 1000) * 1000;
      const p = {};
      for (const { type, value } of parts.formatToParts(seconds)) p[type] = value;
      let year = Number(p.year);
      if (p.era === 'BC' || p.era === 'B') year = 1 - year;
      const wall = NativeDate.UTC(year, Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute),
        Number(p.second));
      return (seconds - wall) / 60000;
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

    function DateTimeFormat(locales, options) {
      const given = options === undefined ? {} : Object(options);
      const merged = given.timeZone === undefined ? { ...given, timeZone: zone } : given;
      return new NativeFormat(locales, merged);
    }
    DateTimeFormat.prototype = NativeFormat.prototype;
    define(DateTimeFormat, 'supportedLocalesOf', NativeFormat.supportedLocalesOf);
    Object.defineProperty(NativeFormat.prototype, 'constructor', { value: DateTimeFormat, configurable: true,
      writable: true, enumerable: false });
    native.add(DateTimeFormat);
    Object.defineProperty(Intl, 'DateTimeFormat', { value: DateTimeFormat, configurable: true, writable: true,
      enumerable: false });

    const withZone = (options) => {
      const given = options === undefined ? {} : Object(options);
      return given.timeZone === undefined ? { ...given, timeZone: zone } : given;
    };
    define(proto, 'toLocaleString', function toLocaleString(locales, options) {
      return utc.toLocaleString.call(this, locales, withZone(options));
    });
    define(proto, 'toLocaleDateString', function toLocaleDateString(locales, options) {
      return utc.toLocaleDateString.call(this, locales, withZone(options));
    });
    define(proto, 'toLocaleTimeString', function toLocaleTimeString(locales, options) {
      return utc.toLocaleTimeString.call(this, locales, withZone(options));
    });
    define(proto, 'getTimezoneOffset', function getTimezoneOffset() {
      return offsetAt(utc.getTime.call(this));
    });
    const getters = { getFullYear: 'getUTCFullYear', getMonth: 'getUTCMonth', getDate: 'getUTCDate',
      getDay: 'getUTCDay', getHours: 'getUTCHours', getMinutes: 'getUTCMinutes', getSeconds: 'getUTCSeconds',
      getMilliseconds: 'getUTCMilliseconds' };
    for (const [local, universal] of Object.entries(getters)) {
      const read = utc[universal];
      define(proto, local, { [local]() { return read.call(shifted(this)); } }[local]);
    }
    define(proto, 'getYear', function getYear() { return utc.getUTCFullYear.call(shifted(this)) - 1900; });
    for (const local of ['setFullYear', 'setMonth', 'setDate', 'setHours', 'setMinutes', 'setSeconds',
      'setMilliseconds']) {
      const universal = proto[local.replace('set', 'setUTC')];
      define(proto, local, { [local](...args) {
        const wall = shifted(this);
        universal.apply(wall, args);
        return utc.setTime.call(this, instantOf(utc.getTime.call(wall)));
      } }[local]);
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
    define(proto, 'toString', function toString() {
      if (invalid(this)) return 'Invalid Date';
      const d = shifted(this);
      return `${dateText(d)} ${timeText(this, d)}`;
    });
    define(proto, 'toDateString', function toDateString() {
      return invalid(this) ? 'Invalid Date' : dateText(shifted(this));
    });
    define(proto, 'toTimeString', function toTimeString() {
      return invalid(this) ? 'Invalid Date' : timeText(this, shifted(this));
    });
    // new Date(y, m, ...) reads its components as local time; Date() (called) is the local time as text.
    const ZonedDate = new Proxy(NativeDate, {
      construct(target, args, newTarget) {
        if (args.length < 2) return Reflect.construct(target, args, newTarget);
        const wall = NativeDate.UTC(...args);
        return Reflect.construct(target, [Number.isNaN(wall) ? NaN : instantOf(wall)], newTarget);
      },
      apply() { return proto.toString.call(new NativeDate()); },
    });
    Object.defineProperty(proto, 'constructor', { value: ZonedDate, configurable: true, writable: true,
      enumerable: false });
    Object.defineProperty(globalThis, 'Date', { value: ZonedDate, configurable: true, writable: true,
      enumerable: false });
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
      define(coords, 'toJSON', function toJSON() { return { ...values }; });
      const result = Object.create(GeolocationPosition.prototype);
      const timestamp = Date.now();
      Object.defineProperty(result, 'coords', { value: coords, enumerable: true });
      Object.defineProperty(result, 'timestamp', { value: timestamp, enumerable: true });
      define(result, 'toJSON', function toJSON() { return { coords: coords.toJSON(), timestamp }; });
      return result;
    };
    let nextWatch = 1;
    const watches = new Set();
    const gproto = Geolocation.prototype;
    define(gproto, 'getCurrentPosition', function getCurrentPosition(success) {
      if (typeof success !== 'function') throw new TypeError("Failed to execute 'getCurrentPosition' on 'Geolocation': parameter 1 is not of type 'Function'.");
      setTimeout(() => success(position()), 0);
    });
    define(gproto, 'watchPosition', function watchPosition(success) {
      if (typeof success !== 'function') throw new TypeError("Failed to execute 'watchPosition' on 'Geolocation': parameter 1 is not of type 'Function'.");
      const id = nextWatch++;
      watches.add(id);
      setTimeout(() => { if (watches.has(id)) success(position()); }, 0);
      return id;
    });
    define(gproto, 'clearWatch', function clearWatch(id) { watches.delete(id); });
    if (typeof Permissions !== 'undefined') {
      const query = Permissions.prototype.query;
      define(Permissions.prototype, 'query', { query(descriptor) {
        if (descriptor && descriptor.name === 'geolocation') {
          const status = Object.create(PermissionStatus.prototype);
          Object.defineProperty(status, 'state', { value: 'granted', enumerable: true });
          Object.defineProperty(status, 'name', { value: 'geolocation', enumerable: true });
          Object.defineProperty(status, 'onchange', { value: null, writable: true, enumerable: true });
          return Promise.resolve(status);
        }
        return query.call(this, descriptor);
      } }.query);
    }
  }
})();
