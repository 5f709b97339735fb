// Chrome DevTools' Recorder, recording a person's real X input in Debian's chromium, for bench/realapps.py.
//
// Usage: PUPPETEER_SKIP_DOWNLOAD=1 DISPLAY=:N node bench/realapps/chrome_recorder.mjs SPEC.json
// SPEC: {"chromium", "args": [...flags], "url", "port" (a DevTools port for the bench's eyes), "out" (file),
//        "width", "height"}
//
// Faithful to the Recorder panel, without its UI (which cannot be driven here): the recording client is the
// Recorder's own injected script (front_end/panels/recorder/injected/ of the chrome-devtools-frontend package,
// bundled as DevTools bundles it), injected the way its RecordingSession does (a `devtools_recorder` isolated
// world with the command-line API, which gives it getAccessibleName/getAccessibleRole; the addStep and
// stopShortcut bindings; every frame, and every out-of-process frame as a target of its own), with every
// selector type enabled (the panel's default). The session's step assembly (RecordingSession.ts: the first
// setViewport and navigate steps, merging change events, dropping key events that made input, the
// navigation assertions of beforeunload and of the page's history) is ported below, line for line in
// behaviour. Prints "recording" when it listens; on a line "stop" on stdin it writes the user flow (the JSON
// the panel exports) to SPEC.out and closes the browser.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bench = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(bench, 'package.json'));
const puppeteer = require('puppeteer-core');
const esbuild = require('esbuild');

const WORLD = 'devtools_recorder';
const BINDINGS = ['addStep', 'stopShortcut'];
const SELECTOR_TYPES = ['css', 'aria', 'text', 'xpath', 'pierce'];  // every type: the panel's default
const UNRELATED_NAVIGATIONS = new Set(['typed', 'address_bar', 'auto_bookmark', 'auto_subframe', 'generated',
  'auto_toplevel', 'reload', 'keyword', 'keyword_generated']);

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const injected = esbuild.buildSync({
  entryPoints: [require.resolve('chrome-devtools-frontend/front_end/panels/recorder/injected/injected.ts')],
  bundle: true, format: 'iife', write: false, target: 'chrome120', logLevel: 'error',
}).outputFiles[0].text;
const script = `${injected};DevToolsRecorder.startRecording({getAccessibleName, getAccessibleRole}, {
  debug: false, allowUntrustedEvents: false, selectorTypesToRecord: ${JSON.stringify(SELECTOR_TYPES)},
  selectorAttribute: undefined, stopShortcuts: [] });`;

// A fresh profile that, like a person's who said "Never" once, offers no password bubble over the page.
const profile = join(dirname(spec.out), 'chrome-profile');
mkdirSync(join(profile, 'Default'), { recursive: true });
writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ credentials_enable_service: false,
  profile: { password_manager_enabled: false } }));
const browser = await puppeteer.launch({
  userDataDir: profile, executablePath: spec.chromium, headless: false, pipe: true, defaultViewport: null,
  ignoreDefaultArgs: ['--enable-automation'],  // no 'controlled by automated software' bar: a person's Chrome
  // --test-type: no 'unsupported command-line flag' bar over the page (--no-sandbox is needed as root)
  args: [...spec.args, '--test-type', `--remote-debugging-port=${spec.port}`, '--remote-allow-origins=*', '--window-position=0,0',
    `--window-size=${spec.width},${spec.height}`],
});
const page = (await browser.pages())[0] ?? await browser.newPage();
await page.goto(spec.url, { waitUntil: 'load' });  // the page is open before the person presses Record

// -- the session (RecordingSession.ts) ------------------------------------------------------------------------------
const flow = { title: 'bench flow', steps: [] };
const pressedChangeKeys = new Set();
const stepsPendingNavigation = new Map();   // target name -> step
const lastEntryId = new Map();
const lastHistory = new Map();
let chain = Promise.resolve();                // the panel's mutex: events are handled one at a time, in order
const serial = (fn) => { chain = chain.then(fn).catch((e) => process.stderr.write(`recorder: ${e.stack}\n`)); };

function selectorsEqual(a, b) {
  if ('selectors' in a && 'selectors' in b) return JSON.stringify(a.selectors) === JSON.stringify(b.selectors);
  return !('selectors' in a) && !('selectors' in b);
}

function appendStep(step) {
  const previous = flow.steps[flow.steps.length - 1];
  switch (step.type) {
    case 'doubleClick':
      for (let j = flow.steps.length - 1; j > 0; j--) {
        if (flow.steps[j].type === 'click') { step.selectors = flow.steps[j].selectors; flow.steps.splice(j, 1); break; }
      }
      break;
    case 'change':
      if (!previous) break;
      if (previous.type === 'change') {
        if (!selectorsEqual(step, previous)) break;
        flow.steps[flow.steps.length - 1] = step;
        return;
      }
      if (previous.type === 'keyDown') {
        pressedChangeKeys.add(previous.key);
        flow.steps.pop();
        appendStep(step);
        return;
      }
      break;
    case 'keyDown':
      if (pressedChangeKeys.has(step.key)) return;
      break;
    case 'keyUp':
      if (pressedChangeKeys.has(step.key)) { pressedChangeKeys.delete(step.key); return; }
      break;
  }
  flow.steps.push(step);
}

function handleBeforeUnload(context) {
  const last = flow.steps[flow.steps.length - 1];
  if (last && !last.assertedEvents?.find((e) => e.type === 'navigation')) {
    const frame = (context.frame || []).join(',');
    const lastFrame = (('frame' in last ? last.frame : []) || []).join(',');
    if (context.target === (last.target || 'main') && frame === lastFrame) {
      last.assertedEvents = [{ type: 'navigation' }];
      stepsPendingNavigation.set(context.target, last);
    }
  }
}

function replaceUnloadWithNavigation(name, event) {
  const step = stepsPendingNavigation.get(name);
  const navigation = step?.assertedEvents?.find((e) => e.type === 'navigation');
  if (!navigation || navigation.url) return;
  navigation.url = event.url;
  navigation.title = event.title;
}

async function title(session) {
  const { result } = await session.send('Runtime.evaluate', { expression: 'document.title' });
  return result?.value || '';
}

// One target: the page, or an out-of-process frame (named by its address, as getTargetName does).
async function setUpTarget(session, name) {
  const contexts = new Map();  // execution context id -> frame id
  session.on('Runtime.executionContextCreated', ({ context }) => contexts.set(context.id, context.auxData?.frameId));
  session.on('Runtime.bindingCalled', (event) => serial(async () => {
    if (event.name !== 'addStep') return;  // stopShortcut: the person never presses the panel's shortcut here
    const frameId = contexts.get(event.executionContextId);
    const { frameTree } = await session.send('Page.getFrameTree');
    const path = framePath(frameTree, frameId) ?? [];
    const context = { target: name, frame: path };
    const step = JSON.parse(event.payload);
    const frame = path.length ? path : undefined;
    if (step.type === 'beforeUnload') return handleBeforeUnload(context);
    const base = { type: step.type, target: context.target, frame };
    if (step.type === 'change') appendStep({ ...base, value: step.value, selectors: step.selectors });
    else if (step.type === 'click' || step.type === 'doubleClick') {
      appendStep({ ...base, selectors: step.selectors, offsetY: step.offsetY, offsetX: step.offsetX,
        ...(step.type === 'click' ? { duration: step.duration } : {}), deviceType: step.deviceType, button: step.button });
    } else if (step.type === 'keyUp' || step.type === 'keyDown') appendStep({ ...base, key: step.key });
  }));
  await session.send('Runtime.enable');
  await session.send('Page.enable');
  for (const binding of BINDINGS) await session.send('Runtime.addBinding', { name: binding, executionContextName: WORLD });
  await session.send('Page.addScriptToEvaluateOnNewDocument', { source: script, worldName: WORLD,
    includeCommandLineAPI: true });
  const { frameTree } = await session.send('Page.getFrameTree');
  for (const frame of flatten(frameTree)) {
    const { executionContextId } = await session.send('Page.createIsolatedWorld', { frameId: frame.frame.id,
      worldName: WORLD });
    await session.send('Runtime.evaluate', { expression: script, includeCommandLineAPI: true,
      contextId: executionContextId });
  }
}

function flatten(tree) { return [tree, ...(tree.childFrames || []).flatMap(flatten)]; }

// The frame's path in its target's frame tree: the index among its parent's children, from the top down.
function framePath(tree, frameId, path = []) {
  if (tree.frame.id === frameId) return path;
  const children = tree.childFrames || [];
  for (let i = 0; i < children.length; i++) {
    const found = framePath(children[i], frameId, [...path, i]);
    if (found) return found;
  }
  return undefined;
}

async function handlePageNavigation(session) {
  const history = await session.send('Page.getNavigationHistory');
  const entry = history.entries[history.currentIndex];
  if (lastEntryId.get('main') === entry.id) return;
  lastEntryId.set('main', entry.id);
  const seen = lastHistory.get('main') || [];
  lastHistory.set('main', history.entries.map((e) => e.id));
  if (UNRELATED_NAVIGATIONS.has(entry.transitionType) || seen.includes(entry.id)) {
    const pending = stepsPendingNavigation.get('main');
    if (pending) { delete pending.assertedEvents; stepsPendingNavigation.delete('main'); }
    appendStep({ type: 'navigate', url: entry.url,
      assertedEvents: [{ type: 'navigation', url: entry.url, title: entry.title }] });
  } else {
    replaceUnloadWithNavigation('main', { type: 'navigation', url: entry.url, title: entry.title });
  }
}

const main = await page.createCDPSession();
const { cssLayoutViewport } = await main.send('Page.getLayoutMetrics');
flow.steps.push({ type: 'setViewport', width: cssLayoutViewport.clientWidth, height: cssLayoutViewport.clientHeight,
  deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: false });
{
  const history = await main.send('Page.getNavigationHistory');
  const entry = history.entries[history.currentIndex];
  lastEntryId.set('main', entry.id);
  lastHistory.set('main', history.entries.map((e) => e.id));
  flow.steps.push({ type: 'navigate', url: entry.url,
    assertedEvents: [{ type: 'navigation', url: entry.url, title: entry.title }] });
}
await setUpTarget(main, 'main');

// Out-of-process frames (a cross-origin iframe is one) are targets of their own; navigations of the page.
const pageTargetId = page.target()._targetId;
const root = await browser.target().createCDPSession();
const frameTargets = new Map();
root.on('Target.targetCreated', ({ targetInfo }) => serial(async () => {
  if (targetInfo.type !== 'iframe' || frameTargets.has(targetInfo.targetId)) return;
  const { sessionId } = await root.send('Target.attachToTarget', { targetId: targetInfo.targetId, flatten: true });
  const session = root.connection().session(sessionId);
  frameTargets.set(targetInfo.targetId, targetInfo.url);
  await setUpTarget(session, targetInfo.url);
}));
root.on('Target.targetInfoChanged', ({ targetInfo }) => serial(async () => {
  if (targetInfo.targetId === pageTargetId && targetInfo.type === 'page') await handlePageNavigation(main);
  else if (frameTargets.has(targetInfo.targetId)) {
    replaceUnloadWithNavigation(frameTargets.get(targetInfo.targetId), { type: 'navigation', url: targetInfo.url,
      title: '' });
  }
}));
await root.send('Target.setDiscoverTargets', { discover: true });
await chain;
process.stdout.write('recording\n');

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() !== 'stop') continue;
  await new Promise((resolve) => setTimeout(resolve, 300));  // the panel's 100 ms update, and the last events
  await chain;
  writeFileSync(spec.out, JSON.stringify(flow, null, 2));
  break;
}
await browser.close();
process.exit(0);
