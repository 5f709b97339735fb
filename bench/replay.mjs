// @puppeteer/replay replaying Chrome DevTools Recorder recordings, for bench/replay.py (peer (d)).
//
// Usage: PUPPETEER_SKIP_DOWNLOAD=1 node bench/replay.mjs SPEC.json
// SPEC: {"chromium": "/usr/bin/chromium", "args": [...flags], "recordings": [recording, ...]}
// Launches Debian's chromium once through puppeteer-core (headless, 1280x720 like Playwright's default page),
// opens one page, replays every recording in turn on it with
// createRunner(recording, new PuppeteerRunnerExtension(browser, page)) and prints JSON on stdout:
// {"version", "launchMs", "runs": [{"ms", "readings"}]} where ms is createRunner + run() of one recording.
//
// The Recorder format has no file upload and no "read a value" step, so two customSteps are handled here
// (the stock extension ignores customStep): {"name": "upload", "parameters": {"selector", "paths"}}
// (ElementHandle.uploadFile) and {"name": "read", "parameters": {"key", "expression"}} (page.evaluate;
// the value lands in readings[key]). Everything else is the stock PuppeteerRunnerExtension.
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import puppeteer from 'puppeteer-core';
import { createRunner, PuppeteerRunnerExtension } from '@puppeteer/replay';

const TIMEOUT_MS = 60_000;

class BenchExtension extends PuppeteerRunnerExtension {
  constructor(browser, page, readings) {
    super(browser, page, { timeout: TIMEOUT_MS });
    this.readings = readings;
  }

  async runStep(step, flow) {
    if (step.type !== 'customStep') {
      return super.runStep(step, flow);
    }
    const { name, parameters } = step;
    if (name === 'upload') {
      const element = await this.page.waitForSelector(parameters.selector, { timeout: TIMEOUT_MS });
      await element.uploadFile(...parameters.paths);
      await element.dispose();
    } else if (name === 'read') {
      this.readings[parameters.key] = await this.page.evaluate(parameters.expression);
    } else {
      throw new Error(`unknown customStep ${name}`);
    }
  }
}

const spec = JSON.parse(await readFile(process.argv[2], 'utf8'));
const launchStarted = performance.now();
const browser = await puppeteer.launch({
  executablePath: spec.chromium,
  headless: true,
  args: spec.args,
  defaultViewport: { width: 1280, height: 720 },
});
let output;
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(TIMEOUT_MS);
  const launchMs = performance.now() - launchStarted;
  const runs = [];
  for (const recording of spec.recordings) {
    const readings = {};
    const started = performance.now();
    const runner = await createRunner(recording, new BenchExtension(browser, page, readings));
    const completed = await runner.run();
    const ms = performance.now() - started;
    if (!completed) {
      throw new Error(`the replay of "${recording.title}" was aborted`);
    }
    runs.push({ ms, readings });
  }
  output = { version: await browser.version(), launchMs, runs };
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(output) + '\n');
