// Browser measurements of Strategist's pages (not run by make test-e2e: run
// `scripts/e2e.sh measure.bench.js`): time to the first streamed token on
// screen, bytes of HTML+JS+CSS per page load, and a 200-message conversation.
// Results are printed and written to test-results/measurements.json.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { env, useBrowser, byTestId, Api, viewports } from './lib/harness.js';
import { acceptanceRequest, waitConnected, waitIdle } from './lib/conversation.js';

const b = useBrowser();
const results = {};

after(async () => {
  const dir = env().results;
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'measurements.json'), JSON.stringify(results, null, 2) + '\n');
  console.log(JSON.stringify(results, null, 2));
});

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const r = (x) => Math.round(x * 10) / 10;
  return { n: s.length, min: r(s[0]), median: r(q(0.5)), p90: r(q(0.9)), max: r(s.at(-1)) };
}

// watchFirstToken records, in the page, when an assistant message's text
// first becomes non-empty after it is armed (performance.now(), ms since the
// navigation started).
const watchFirstToken = () => {
  window.__firstToken = null;
  const seen = new Set(
    [...document.querySelectorAll('[data-testid="message"][data-role="assistant"] [data-testid="message-text"]')].filter(
      (el) => el.textContent.trim() !== '',
    ),
  );
  const check = () => {
    if (window.__firstToken !== null) return;
    for (const el of document.querySelectorAll('[data-testid="message"][data-role="assistant"] [data-testid="message-text"]')) {
      if (!seen.has(el) && el.textContent.trim() !== '') {
        window.__firstToken = performance.now();
        obs.disconnect();
        return;
      }
    }
  };
  const obs = new MutationObserver(check);
  obs.observe(document.body, { childList: true, subtree: true, characterData: true });
};

test('time from Enter to the first streamed token on screen (offline engine)', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const { page } = await b.openAs(alice);
  const samples = [];
  for (let i = 0; i < 12; i++) {
    const conv = await api.createConversation(`first token ${i}`);
    await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);
    await page.evaluate(watchFirstToken);
    await page.evaluate(() => {
      window.__sent = null;
      document.querySelector('[data-testid="message-input"]').addEventListener(
        'keydown',
        (e) => {
          if (e.key === 'Enter') window.__sent = performance.now();
        },
        { once: true, capture: true },
      );
    });
    await byTestId(page, 'message-input').fill(i % 2 ? acceptanceRequest : 'Which searches find genes by GO term?');
    await byTestId(page, 'message-input').press('Enter');
    await page.waitForFunction(() => window.__firstToken !== null, null, { timeout: 20_000 });
    const [sent, first] = await page.evaluate(() => [window.__sent, window.__firstToken]);
    if (i >= 2) samples.push(first - sent); // the first two warm the caches
    await waitIdle(page, api, conv.id);
  }
  results.enterToFirstTokenMs = stats(samples);
});

test('time from page load to the first streamed token, a turn starting as the page loads', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const { page } = await b.openAs(alice);
  const load = [];
  const open = [];
  const first = [];
  for (let i = 0; i < 10; i++) {
    const conv = await api.createConversation(`page load ${i}`);
    // The page is loaded, then the turn starts through the API once the
    // document has parsed, so its tokens stream into the page live.
    await page.goto(`/conversations/${conv.id}`, { waitUntil: 'commit' });
    await page.waitForFunction(() => document.readyState !== 'loading');
    await page.evaluate(watchFirstToken);
    await api.startTurn(conv.id, acceptanceRequest, 'plan', 'offline');
    await page.waitForFunction(() => window.__firstToken !== null, null, { timeout: 20_000 });
    await waitConnected(page);
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      return { dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, first: window.__firstToken };
    });
    if (i >= 1) {
      load.push(t.load);
      first.push(t.first);
    }
    await api.waitIdle(conv.id);
    open.push(t.dcl);
  }
  results.pageLoad = { domContentLoadedMs: stats(open), loadEventMs: stats(load), navigationToFirstTokenMs: stats(first) };
});

async function pageBytes(page, url) {
  await page.goto(url);
  await page.waitForLoadState('load');
  return page.evaluate(() => {
    const out = { html: { transfer: 0, body: 0 }, js: { transfer: 0, body: 0 }, css: { transfer: 0, body: 0 }, files: [] };
    const nav = performance.getEntriesByType('navigation')[0];
    out.html.transfer += nav.transferSize;
    out.html.body += nav.decodedBodySize;
    for (const r of performance.getEntriesByType('resource')) {
      const kind = /\.js(\?|$)/.test(r.name) ? 'js' : /\.css(\?|$)/.test(r.name) ? 'css' : null;
      if (!kind) continue;
      out[kind].transfer += r.transferSize;
      out[kind].body += r.decodedBodySize;
      out.files.push({ name: new URL(r.name).pathname, transfer: r.transferSize, body: r.decodedBodySize });
    }
    return out;
  });
}

test('bytes of HTML, JS and CSS per page load, cold and warm cache', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const conv = await api.createConversation('bytes');
  await api.startTurn(conv.id, acceptanceRequest, 'plan', 'offline');
  const planned = await api.waitIdle(conv.id);
  const handoff = planned.handoffs.find((h) => h.status === 'pending');
  await api.call('POST', `/conversations/${conv.id}/handoffs/${handoff.id}/accept`);
  await api.waitIdle(conv.id);
  results.bytes = {};
  for (const [name, url, signedIn] of [
    ['signin', '/signin', false],
    ['list', '/', true],
    ['conversation (built acceptance strategy)', `/conversations/${conv.id}`, true],
  ]) {
    const { page } = signedIn ? await b.openAs(alice) : await b.open();
    if (signedIn) {
      // Signing in loaded the list once: start from a cold cache for this page.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.clearBrowserCache');
    }
    const cold = await pageBytes(page, url);
    const warm = await pageBytes(page, url);
    results.bytes[name] = { cold, warm };
  }
});

test('a 200-message conversation: load time, DOM size, and a new turn on it', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const conv = await api.createConversation('Two hundred messages');
  const requests = [
    'tRNA genes on chromosome 5',
    'snoRNAs or rRNA genes',
    'genes on chromosomes 1 and 2',
    'DNA replication and DNA repair',
    'protein coding genes on the apicoplast',
  ];
  const built = Date.now();
  for (let i = 0; i < 100; i++) {
    // One planned request in ten (tool calls, artifacts, a draft); short
    // questions the planner answers in text otherwise.
    const msg = i % 10 === 0 ? requests[(i / 10) % requests.length] : `Question ${i}: thanks, what next?`;
    await api.startTurn(conv.id, msg, 'plan', 'offline');
    await api.waitIdle(conv.id);
  }
  const state = await api.conversation(conv.id);
  const chatRows = state.messages.filter((m) => m.role === 'user' || m.role === 'assistant');
  const { page } = await b.openAs(alice);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const loads = [];
  let last;
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    const res = await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);
    const wall = Date.now() - t0;
    last = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const chat = document.querySelector('[data-testid="chat"]');
      const msgs = chat.querySelectorAll('[data-testid="message"]');
      const lastMsg = msgs[msgs.length - 1]?.getBoundingClientRect();
      return {
        responseEndMs: nav.responseEnd,
        domContentLoadedMs: nav.domContentLoadedEventEnd,
        loadMs: nav.loadEventEnd,
        htmlBytes: nav.decodedBodySize,
        htmlTransferBytes: nav.transferSize,
        domElements: document.getElementsByTagName('*').length,
        messagesOnScreen: msgs.length,
        toolCards: chat.querySelectorAll('[data-testid="tool-call"]').length,
        artifacts: document.querySelectorAll('[data-testid="artifact"]').length,
        lastMessageInView: lastMsg ? lastMsg.top < window.innerHeight && lastMsg.bottom > 0 : false,
        heapMB: performance.memory ? Math.round(performance.memory.usedJSHeapSize / 1e5) / 10 : null,
      };
    });
    loads.push({ wall, status: res.status(), ...last });
  }
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  // A new turn on the long page: Enter to first token.
  await page.evaluate(watchFirstToken);
  await page.evaluate(() => {
    window.__sent = null;
    document
      .querySelector('[data-testid="message-input"]')
      .addEventListener('keydown', (e) => e.key === 'Enter' && (window.__sent = performance.now()), { once: true, capture: true });
  });
  await byTestId(page, 'message-input').fill('tRNA genes on chromosome 7');
  await byTestId(page, 'message-input').press('Enter');
  await page.waitForFunction(() => window.__firstToken !== null, null, { timeout: 30_000 });
  const [sent, first] = await page.evaluate(() => [window.__sent, window.__firstToken]);
  await waitIdle(page, api, conv.id);
  // Scrolling the chat to the top and back: frames are not measured here,
  // only that it completes.
  const phone = await b.openAs(alice, viewports.phone);
  const t1 = Date.now();
  await phone.page.goto(`/conversations/${conv.id}`);
  await waitConnected(phone.page);
  results.longConversation = {
    buildSeconds: Math.round((Date.now() - built) / 1000),
    apiMessageRows: state.messages.length,
    userAndAssistantRows: chatRows.length,
    loads,
    wallMs: stats(loads.map((l) => l.wall)),
    domContentLoadedMs: stats(loads.map((l) => l.domContentLoadedMs)),
    chromeMetrics: {
      LayoutDurationS: metrics.LayoutDuration,
      RecalcStyleDurationS: metrics.RecalcStyleDuration,
      ScriptDurationS: metrics.ScriptDuration,
      Nodes: metrics.Nodes,
      JSHeapUsedMB: Math.round(metrics.JSHeapUsedSize / 1e5) / 10,
    },
    enterToFirstTokenMs: Math.round(first - sent),
    phoneLoadWallMs: Date.now() - t1,
  };
  assert.ok(last.messagesOnScreen >= 200, `${last.messagesOnScreen} messages on screen`);
});
