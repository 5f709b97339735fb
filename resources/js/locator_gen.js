/*
 * locator_gen.js: the one locator generator. Given an element, it returns the locator a workflow node keeps
 * for it: a primary `selector` (plain CSS) or `xpath` that the original BrowserPilot can run, and ranked
 * `alternatives` for our replay, which tries them in order. Every candidate is verified unique at that
 * moment: it finds this element and nothing else, through the same engines (`__bp.elements`) as every
 * operation. Used by page_inspect/page_hit (inspect.js) and by the recorder (recorder.js).
 *
 * Injected after locator.js into the helpers' isolated world (and into the recorder's own world); defines
 * one global of that world, `__bpGen = {locatorFor(el), interactive(el), stableId(id), stableClass(c)}`.
 *
 * Ranking (Playwright's selector generator and Chrome's Recorder are the anchors): test ids (data-testid,
 * data-test, data-qa, data-cy) -> role + accessible name -> label -> placeholder -> `name` attribute ->
 * alt / title -> visible text -> an id that does not look generated -> CSS with stable classes only ->
 * a structural CSS path / XPath, last. The primary is the first candidate of that order that plain CSS or
 * XPath can express (`[data-testid="x"]`, `//button[normalize-space(.)="Sign in"]`, `input[name="q"]`…).
 * Inside open shadow roots and same-origin frames, `host >> inner` chains join the alternatives.
 */
(() => {
  'use strict';
  if (window.__bpGen || !window.__bp) return;
  const bp = window.__bp;
  const E = bp.element;
  const TESTIDS = ['data-testid', 'data-test', 'data-qa', 'data-cy'];
  const MAX_TEXT = 80;
  const q = (v) => '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const cssString = (v) => '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ') + '"';
  // An XPath 1.0 string literal: quotes of one kind, or concat() when the text holds both.
  const xq = (v) => {
    if (!v.includes('"')) return `"${v}"`;
    if (!v.includes("'")) return `'${v}'`;
    return 'concat(' + v.split('"').map((part) => `"${part}"`).join(`, '"', `) + ')';
  };

  /** Ids and classes that look generated: long hex or digit runs, CSS-in-JS hashes, framework prefixes. */
  const GENERATED = [/\d{3,}/, /[0-9a-f]{6,}/i, /^(css|sc|jsx|emotion|styled|svelte|ember|ng|v|_)-/i,
                     /^[a-z]{1,3}[A-Z0-9][A-Za-z0-9]{4,}$/, /^:/, /--[A-Za-z0-9]{5,}/];
  // A hash after a dash or underscore (`Button_root__3xK9a`, `css-kQmzXw`), unlike words (`ql-editor`,
  // `bk-Checkbox`, `form-control`, `widgets-TextInput`): each part made of words with a vowel is not one.
  const WORDS = /^([A-Z]?[a-z]*[aeiouy][a-z]*)+$/;
  const hashTail = (value) => {
    const m = /[_-]([A-Za-z0-9]{5,})$/.exec(value);
    return !!m && (/\d/.test(m[1]) || !m[1].split(/(?=[A-Z])/).every((w) => WORDS.test(w)));
  };
  const hasVowelWord = (s) => /[aeiou]/i.test(s) && /[a-z]{3}/i.test(s);
  const stable = (value) => !!value && value.length <= 40 && hasVowelWord(value) &&
    !GENERATED.some((re) => re.test(value)) && !hashTail(value) &&
    !(/[0-9]/.test(value) && /[A-Z]/.test(value) && /[a-z]/.test(value));

  const INTERACTIVE = 'button, a[href], input, select, textarea, summary, label, option, ' +
    '[role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], ' +
    '[role=menuitemcheckbox], [role=menuitemradio], [role=option], [role=combobox], [role=textbox], ' +
    '[role=slider], [role=treeitem], [contenteditable=""], [contenteditable=true], [tabindex]:not([tabindex="-1"])';

  /** The element a person meant: the nearest interactive ancestor (through shadow hosts), never a text node
   *  or an inner span; a <label> of a control stands for the control. */
  function interactive(node) {
    let el = node && node.nodeType === 1 ? node : node && node.parentElement;
    for (let n = el; n; n = n.parentElement || (n.getRootNode() instanceof ShadowRoot ? n.getRootNode().host : null)) {
      if (n.matches && n.matches(INTERACTIVE)) {
        if (n.localName === 'label' && n.control) return n.control;
        return n;
      }
    }
    return el;
  }

  const only = (locator, el) => {
    try {
      const found = bp.elements(locator);
      return found.length === 1 && found[0] === el;
    } catch (e) { return false; }
  };

  function stableClasses(el) {
    return [...el.classList].filter(stable).slice(0, 3);
  }

  /** CSS by structure: the shortest chain of `tag.stable-class:nth-of-type(i)` steps up to a stable id. */
  function cssPath(el, useClasses) {
    const doc = el.ownerDocument;
    const parts = [];
    for (let n = el; n && n.nodeType === 1 && n !== doc.documentElement; n = n.parentElement) {
      if (n !== el && n.id && stable(n.id) && doc.querySelectorAll('#' + CSS.escape(n.id)).length === 1) {
        parts.unshift('#' + CSS.escape(n.id));
        const css = parts.join(' > ');
        return only({ selector: css }, el) ? css : null;
      }
      let part = n.localName;
      const classes = useClasses ? stableClasses(n) : [];
      if (classes.length) part += classes.map((c) => '.' + CSS.escape(c)).join('');
      const same = n.parentElement ? [...n.parentElement.children].filter((c) => c.localName === n.localName) : [];
      if (same.length > 1 && !(classes.length && n.parentElement.querySelectorAll(':scope > ' + part).length === 1)) {
        part += `:nth-of-type(${same.indexOf(n) + 1})`;
      }
      parts.unshift(part);
      const css = parts.join(' > ');
      if (only({ selector: css }, el)) return css;
    }
    return null;
  }

  function xpathOf(el) {
    const steps = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const same = n.parentElement ? [...n.parentElement.children].filter((c) => c.localName === n.localName) : [n];
      const name = n.namespaceURI === 'http://www.w3.org/1999/xhtml' ? n.localName : `*[local-name()="${n.localName}"]`;
      steps.unshift(same.length > 1 ? `${name}[${same.indexOf(n) + 1}]` : name);
    }
    const xpath = '/' + steps.join('/');
    return only({ xpath }, el) ? xpath : null;
  }

  /** The text of the <label> of a form control (wrapping or `for`), or null. */
  function labelOf(el) {
    const labels = el.labels ? [...el.labels] : [];
    for (const label of labels) {
      const text = norm(label.textContent);
      if (text && text.length <= MAX_TEXT) return { label, text };
    }
    return null;
  }

  /** A link's `href` as the page writes it, when it names a place: not `#…`, not `javascript:`, not long, and
   *  without what looks like a per-visit token (a long hex or base64 run, a timestamp). */
  const VOLATILE = /[0-9a-f]{16,}|[A-Za-z0-9_-]{28,}|\d{10,}/i;
  function linkHref(el) {
    if (el.localName !== 'a') return null;
    const href = (el.getAttribute('href') || '').trim();
    if (!href || href.startsWith('#') || /^javascript:/i.test(href) || href.length > 200 || VOLATILE.test(href)) return null;
    return href;
  }

  const FORM_TAGS = ['input', 'select', 'textarea', 'button', 'form', 'iframe', 'object'];

  /** Candidates in rank order: {alt?: alternative for our replay, css?: plain CSS, xpath?: plain XPath}. */
  function candidates(el) {
    const out = [];
    const tag = el.localName;
    for (const attr of TESTIDS) {
      const v = el.getAttribute(attr);
      if (v) { out.push({ alt: { testid: v }, css: `[${attr}=${cssString(v)}]` }); break; }
    }
    const role = E.role(el);
    const name = norm(E.name(el));
    const own = norm(E.text(el));
    if (role && name && name.length <= MAX_TEXT) {
      const entry = { alt: { role, name, exact: true } };
      const aria = el.getAttribute('aria-label');
      if (aria && norm(aria) === name) entry.css = `${tag}[aria-label=${cssString(aria)}]`;
      else if (own === name && !['input', 'select', 'textarea'].includes(tag)) {
        entry.xpath = `//${tag}[normalize-space(.)=${xq(name)}]`;
      }
      out.push(entry);
    }
    const label = labelOf(el);
    if (label) {
      const entry = { alt: { label: label.text, exact: true } };
      if (label.label.contains(el)) entry.xpath = `//label[normalize-space(.)=${xq(label.text)}]//${tag}`;
      else if (label.label.htmlFor) entry.xpath = `//${tag}[@id=//label[normalize-space(.)=${xq(label.text)}]/@for]`;
      out.push(entry);
    } else if (name && name.length <= MAX_TEXT && ['input', 'select', 'textarea'].includes(tag)) {
      out.push({ alt: { label: name, exact: true } });
    }
    const placeholder = el.getAttribute('placeholder');
    if (placeholder && placeholder.length <= MAX_TEXT) {
      out.push({ alt: { placeholder, exact: true }, css: `${tag}[placeholder=${cssString(placeholder)}]` });
    }
    const nameAttr = el.getAttribute('name');
    if (nameAttr && FORM_TAGS.includes(tag)) {
      const type = tag === 'input' && ['radio', 'checkbox'].includes(el.type) && el.value
        ? `[value=${cssString(el.value)}]` : '';
      out.push({ css: `${tag}[name=${cssString(nameAttr)}]${type}` });
    }
    for (const attr of ['alt', 'title']) {
      const v = el.getAttribute(attr);
      if (v && v.length <= MAX_TEXT) out.push({ css: `${tag}[${attr}=${cssString(v)}]` });
    }
    if (el.shadowRoot || tag.includes('-')) {
      // A web component is named by its own attributes (`<my-field name="title" label="Title">`): its identity
      // as the host of a chain, whatever wrappers a redesign puts around it.
      for (const attr of ['name', 'label']) {
        const v = el.getAttribute(attr);
        if (v && v.length <= MAX_TEXT && !(attr === 'name' && nameAttr && FORM_TAGS.includes(tag))) {
          out.push({ css: `${tag}[${attr}=${cssString(v)}]` });
        }
      }
    }
    if (own && own.length <= MAX_TEXT && !['input', 'select', 'textarea'].includes(tag)) {
      out.push({ alt: { text: own, exact: true }, xpath: `//${tag}[normalize-space(.)=${xq(own)}]` });
    }
    const href = linkHref(el);
    if (href) {
      // A link is what it says and where it leads: its address (as the page writes it), then its text with its
      // address, before any position (an admin index names an app and its model alike).
      out.push({ css: `a[href=${cssString(href)}]` });
      if (own && own.length <= MAX_TEXT) out.push({ xpath: `//a[normalize-space(.)=${xq(own)} and @href=${xq(href)}]` });
    }
    if (el.id && stable(el.id)) out.push({ css: '#' + CSS.escape(el.id) });
    if (stableClasses(el).length) out.push({ css: cssPath(el, true) });
    out.push({ css: cssPath(el, false) });
    out.push({ xpath: xpathOf(el) });
    if (el.id && !stable(el.id)) out.push({ css: '#' + CSS.escape(el.id), generated: true });
    return out;
  }

  /** Whether a CSS selector or XPath names an element only by tags and positions (see workflows/nodes/locators.py). */
  const VAGUE_CSS = /^\s*[a-z][a-z0-9-]*(:nth-(of-type|child)\(\d+\))?(\s*[>\s]\s*[a-z][a-z0-9-]*(:nth-(of-type|child)\(\d+\))?)*\s*$/i;
  const vague = (value) => !!value && (/:nth-(of-type|child)\(|^\/.*\[\d+\]/.test(value) || VAGUE_CSS.test(value) ||
    /^(\/+[a-z*][a-z0-9-]*(\[\d+\])?)+$/i.test(value));

  // A chain's host part names the host by what it is (a custom element's tag, its attributes, classes), never by
  // its position (`div:nth-of-type(2)`: after a redesign, another component); inside it, any part but a position.
  const POSITION = /:nth-(of-type|child)\(|^\/.*\[\d+\]|\]\[\d+\]/;
  const hostPart = (value) => !POSITION.test(value) && (!vague(value) || /(^|[\s>])[a-z][a-z0-9]*-/i.test(value));

  const isEngine = (alt) => alt.selector === undefined && alt.xpath === undefined;
  const altSelector = (alt) => {
    if (alt.testid !== undefined) return `testid=${q(alt.testid)}`;
    if (alt.role !== undefined) return `role=${alt.role}[name=${q(alt.name)}s]`;
    for (const engine of ['label', 'placeholder', 'text']) {
      if (alt[engine] !== undefined) return `${engine}=${q(alt[engine])}`;
    }
    return null;
  };

  /** The shadow hosts and frame elements between the top document and `el`'s tree, outermost first. */
  function anchorsOf(el) {
    const out = [];
    for (let n = el; ;) {
      const root = n.getRootNode();
      const up = root.host || (root.nodeType === 9 && root.defaultView && root.defaultView.frameElement) || null;
      if (!up) return out;
      out.unshift(up);
      n = up;
    }
  }

  /** One chain part finding `loc`'s element: its plain primary, else its first alternative. */
  function partOf(loc) {
    if (loc.selector) return loc.selector;
    if (loc.xpath) return 'xpath=' + loc.xpath;
    const first = (loc.alternatives || [])[0];
    return first ? (first.selector || (first.xpath ? 'xpath=' + first.xpath : altSelector(first))) : null;
  }

  /**
   * {selector? | xpath?, alternatives: [...], unique: bool}: the primary is plain CSS or XPath, unique across
   * the whole page as the engines search it (open shadow roots and same-origin frames included, like the
   * original's deep query); each alternative is `{testid}`, `{role, name, exact}`, `{label|placeholder|text,
   * exact}`, `{selector}` or `{xpath}`, all verified unique. For an element inside an open shadow root or a
   * same-origin frame, `{selector: "<host or frame> >> <inner>"}` chains follow the engine forms (the host or
   * frame found by its own locator, the inner part by each of the element's candidates). `unique` is false
   * when nothing finds this element alone.
   */
  function locatorFor(el) {
    const plain = [];
    const alts = [];
    const inner = [];  // the element's candidate selectors, unique or not: the inner parts of chains
    const seen = new Set();
    const addPlain = (kind, value, generated) => {
      if (!value || seen.has(kind + value)) return;
      seen.add(kind + value);
      if (!generated) inner.push(kind === 'xpath' ? 'xpath=' + value : value);
      if (only({ [kind]: value }, el)) plain.push({ [kind]: value, generated: !!generated });
    };
    for (const c of candidates(el)) {
      if (c.alt && isEngine(c.alt)) {
        const selector = altSelector(c.alt);
        if (selector && !seen.has(selector)) {
          seen.add(selector);
          inner.push(selector);
          if (only({ selector }, el)) alts.push(c.alt);
        }
      }
      if (c.css) addPlain('selector', c.css, c.generated);
      if (c.xpath) addPlain('xpath', c.xpath, c.generated);
    }
    const chains = [];
    const anchors = anchorsOf(el);
    const base = anchors.length ? partOf(locatorFor(anchors[anchors.length - 1])) : null;
    if (base) {
      // Once the host is found by its own identity, the element's kind inside it may be enough (a checkbox with
      // no label, an editable area, in a component's shadow root): `<host> >> input[type="checkbox"]`,
      // `<host> >> div[contenteditable]`, kept only when unique.
      const kind = el.localName + (el.localName === 'input' ? `[type=${cssString(el.type)}]` : '') +
        (el.isContentEditable && el.hasAttribute('contenteditable') ? '[contenteditable]' : '');
      for (const part of [kind + stableClasses(el).map((c) => '.' + CSS.escape(c)).join(''), kind]) {
        if (!inner.includes(part)) inner.push(part);
      }
      for (const part of inner) {
        const selector = `${base} >> ${part}`;
        if (chains.length < 3 && hostPart(base) && !POSITION.test(part) && only({ selector }, el)) {
          chains.push({ selector });
        }
      }
    }
    const locator = {};
    const primary = plain.find((p) => !p.generated) || plain[0];
    if (primary) {
      if (primary.selector) locator.selector = primary.selector; else locator.xpath = primary.xpath;
    }
    // Ranked alternatives: the engine forms in rank order, the chains, then the other plain forms in rank order.
    // A bare tag or a position (`button`, `form > div:nth-of-type(2) > input`, `/html/body/div[2]`) is never an
    // alternative: after a redesign it finds whatever element is left there.
    locator.alternatives = alts.concat(chains, plain.filter((p) => p !== primary && !vague(p.selector || p.xpath))
      .map((p) => (p.selector ? { selector: p.selector } : { xpath: p.xpath })));
    locator.unique = !!primary || alts.length > 0 || chains.length > 0;
    if (window.__bpHeal) locator.fingerprint = window.__bpHeal.fingerprint(el);
    return locator;
  }

  window.__bpGen = Object.freeze({ locatorFor, interactive, vague, stableId: stable, stableClass: stable });
})();
