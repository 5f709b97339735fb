// @puppeteer/replay replaying one Chrome DevTools Recorder recording, for bench/heal.py.
//
// Usage: PUPPETEER_SKIP_DOWNLOAD=1 node bench/heal.mjs SPEC.json
// SPEC: {"chromium": "/usr/bin/chromium", "args": [...flags], "timeoutMs": 3000, "recording": {...}}
// Launches Debian's chromium through puppeteer-core, replays the recording with the stock
// PuppeteerRunnerExtension (selectors raced as @puppeteer/replay does) and prints one JSON line:
// {"ok": bool, "error"?: string, "ms": number}. The Recorder format has no file upload: a customStep
// {"name": "upload", "parameters": {"selectors": [...], "paths": [...]}} uploads through the first selector that
// finds an element (ElementHandle.uploadFile).
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import puppeteer from 'puppeteer-core';
import { createRunner, PuppeteerRunnerExtension } from '@puppeteer/replay';

class BenchExtension extends PuppeteerRunnerExtension {
  async runStep(step, flow) {
    this.current = step;  // named in the error, when the step fails
    if (step.type !== 'customStep') return super.runStep(step, flow);
    if (step.name !== 'upload') throw new Error(`unknown customStep ${step.name}`);
    const { selectors, paths } = step.parameters;
    const element = await Promise.any(selectors.map((s) => this.page.waitForSelector(s, { timeout: this.timeout })));
    await element.uploadFile(...paths);
    await element.dispose();
  }
}

const spec = JSON.parse(await readFile(process.argv[2], 'utf8'));
const browser = await puppeteer.launch({ executablePath: spec.chromium, headless: true, args: spec.args,
  defaultViewport: { width: 1280, height: 900 } });
let out;
let extension;
const started = performance.now();
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(spec.timeoutMs);
  extension = new BenchExtension(browser, page, { timeout: spec.timeoutMs });
  const runner = await createRunner(spec.recording, extension);
  const completed = await runner.run();
  out = completed ? { ok: true } : { ok: false, error: 'the replay was aborted' };
} catch (error) {
  const step = extension?.current;
  const where = step ? ` (step ${spec.recording.steps.indexOf(step) + 1}: ${step.type}` +
    `${step.selectors ? ' ' + JSON.stringify(step.selectors[0]) : ''})` : '';
  out = { ok: false, error: String(error && error.message || error).split('\n')[0] + where };
} finally {
  out.ms = performance.now() - started;
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + '\n');
