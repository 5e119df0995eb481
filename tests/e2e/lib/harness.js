// The harness of Strategist's browser tests: the running server's address and
// accounts (from scripts/e2e.sh), Debian Chromium through playwright-core,
// sign-in, the JSON API, and screenshots.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { before, after, afterEach } from 'node:test';
import { chromium } from 'playwright-core';

/** env reads what scripts/e2e.sh passes; a test run without it fails early. */
export function env() {
  const need = (name) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set: run the browser tests with scripts/e2e.sh (make test-e2e)`);
    return v;
  };
  const user = (n) => ({
    email: need(`E2E_USER${n}_EMAIL`),
    password: need(`E2E_USER${n}_PASSWORD`),
    token: need(`E2E_USER${n}_TOKEN`),
  });
  return {
    baseURL: need('E2E_BASE_URL'),
    chromium: process.env.CHROMIUM || '/usr/bin/chromium',
    screenshots: process.env.E2E_SCREENSHOTS_DIR || path.resolve('test-results/screenshots'),
    results: process.env.E2E_RESULTS_DIR || path.resolve('test-results'),
    alice: user(1),
    bob: user(2),
  };
}

// Chromium's flags on a machine with no network beyond loopback: no
// background connections, no component updates, no QUIC, no GPU.
const chromiumFlags = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Viewports every page must work at. */
export const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
};

/**
 * launch starts headless Debian Chromium. playwright-core gives every launch
 * a new empty profile directory and removes it on close.
 */
export async function launch() {
  const e = env();
  return chromium.launch({ executablePath: e.chromium, headless: true, args: chromiumFlags });
}

/**
 * newPage opens a fresh context (no cookies) at a viewport, collecting the
 * page's console errors, uncaught exceptions and dialogs so that tests can
 * assert there were none.
 */
export async function newPage(browser, viewport = viewports.desktop) {
  const e = env();
  const context = await browser.newContext({
    baseURL: e.baseURL,
    viewport,
    isMobile: viewport.width < 500,
    hasTouch: viewport.width < 500,
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const problems = { console: [], pageErrors: [], dialogs: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
  });
  page.on('pageerror', (err) => problems.pageErrors.push(String(err)));
  page.on('dialog', async (d) => {
    problems.dialogs.push(`${d.type()}: ${d.message()}`);
    await d.dismiss().catch(() => {});
  });
  return { context, page, problems };
}

/**
 * useBrowser registers the hooks of a test file: one browser for the file, and
 * the pages a test opens with open() closed after it (a picture of each kept
 * in test-results/failures when the test failed).
 */
export function useBrowser() {
  const state = { browser: undefined, opened: [] };
  before(async () => {
    state.browser = await launch();
  });
  after(async () => {
    await state.browser?.close();
  });
  afterEach(async (t) => {
    for (const p of state.opened.splice(0)) {
      if (t.passed === false) await failureShot(t, p.page);
      await p.context.close().catch(() => {});
    }
  });
  return {
    get browser() {
      return state.browser;
    },
    /** open a fresh signed-out page at viewport. */
    async open(viewport = viewports.desktop) {
      const p = await newPage(state.browser, viewport);
      state.opened.push(p);
      return p;
    },
    /** openAs a fresh page with user signed in. */
    async openAs(user, viewport = viewports.desktop) {
      const p = await this.open(viewport);
      await signIn(p.page, user);
      return p;
    },
  };
}

/** signIn signs user in through the form and waits for the conversation list. */
export async function signIn(page, user) {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await Promise.all([
    page.waitForURL((u) => u.pathname === '/'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/** byTestId is a locator for a data-testid hook of the UI contract. */
export function byTestId(scope, id) {
  return scope.locator(`[data-testid="${id}"]`);
}

/**
 * screenshot saves a picture of the page's current state as NAME.png in the
 * screenshots directory (docs/screenshots when refreshing the README's).
 */
export async function screenshot(page, name, opts = {}) {
  const dir = env().screenshots;
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: opts.fullPage ?? false, animations: 'disabled', caret: 'hide' });
  return file;
}

/**
 * failureShot saves a picture into test-results when a test fails, named
 * after the test, for a look at what the browser showed.
 */
export async function failureShot(t, page) {
  if (!page || page.isClosed()) return;
  const dir = path.join(env().results, 'failures');
  await mkdir(dir, { recursive: true });
  const name = t.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80);
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true }).catch(() => {});
}

/** Api calls the JSON API as a user, with the user's API token. */
export class Api {
  constructor(user) {
    this.user = user;
    this.base = env().baseURL;
  }

  async call(method, route, body, { okStatuses = [200, 201, 202, 204] } = {}) {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(this.base + '/api/v1' + route, {
        method,
        headers: {
          Authorization: `Bearer ${this.user.token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // Turn creation is rate-limited per user: wait as told and retry.
      if (res.status === 429 && attempt < 120) {
        const wait = Number(res.headers.get('Retry-After') || '1');
        await new Promise((r) => setTimeout(r, Math.max(wait, 0.2) * 1000));
        continue;
      }
      const text = await res.text();
      const json = text ? JSON.parse(text) : null;
      if (!okStatuses.includes(res.status)) {
        const err = new Error(`${method} ${route}: ${res.status} ${text}`);
        err.status = res.status;
        err.body = json;
        throw err;
      }
      return { status: res.status, body: json };
    }
  }

  async createConversation(title) {
    const { body } = await this.call('POST', '/conversations', { siteId: 'plasmodb', ...(title ? { title } : {}) });
    return body;
  }

  async conversation(id) {
    return (await this.call('GET', `/conversations/${id}`)).body;
  }

  async startTurn(id, message, mode = 'plan', model) {
    const { body } = await this.call('POST', `/conversations/${id}/turns`, { message, mode, ...(model ? { model } : {}) });
    return body.turnId;
  }

  /** waitIdle polls until no turn of the conversation is running. */
  async waitIdle(id, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const conv = await this.conversation(id);
      if (!(conv.turns || []).some((t) => t.status === 'running')) return conv;
      if (Date.now() > deadline) throw new Error(`conversation ${id} still has a running turn after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async strategy(id) {
    return (await this.call('GET', `/conversations/${id}/strategy`)).body;
  }
}
