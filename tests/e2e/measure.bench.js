// Browser measurements of Strategist's pages (not run by make test-e2e: run
// `scripts/e2e.sh measure.bench.js`): the latency of Enter and Build beside
// their floors (alone: make bench-browser), time to the first streamed token
// from page load, bytes of HTML+JS+CSS per page load, and a 200-message
// conversation. Results are printed and written to
// test-results/measurements.json (the latency alone also to latency.json).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
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

// armTimers records, in the page, performance.now() (ms since the navigation
// started) of: Enter in the composer (__sent), a new user message on
// screen (__echo), a new tool-call card (__firstTool), and the first text
// of an assistant message that had none when armed (__firstToken).
const armTimers = () => {
  Object.assign(window, { __sent: null, __echo: null, __firstTool: null, __firstToken: null });
  const q = (sel) => [...document.querySelectorAll(sel)];
  const texts = '[data-testid="message"][data-role="assistant"] [data-testid="message-text"]';
  const had = new Set(q(texts).filter((el) => el.textContent.trim() !== ''));
  // Elements, not counts: a new turn folds an older one, whose messages and
  // cards leave the page as the new ones come.
  const users = new Set(q('[data-testid="message"][data-role="user"]'));
  const tools = new Set(q('[data-testid="tool-call"]').map((el) => el.id));
  const obs = new MutationObserver(() => {
    const now = performance.now();
    if (window.__echo === null && q('[data-testid="message"][data-role="user"]').some((el) => !users.has(el))) window.__echo = now;
    if (window.__firstTool === null && q('[data-testid="tool-call"]').some((el) => !tools.has(el.id))) window.__firstTool = now;
    if (window.__firstToken === null && q(texts).some((el) => !had.has(el) && el.textContent.trim() !== '')) window.__firstToken = now;
    if (window.__echo !== null && window.__firstToken !== null) obs.disconnect();
  });
  obs.observe(document.body, { childList: true, subtree: true, characterData: true });
  document.querySelector('[data-testid="message-input"]')?.addEventListener(
    'keydown',
    (e) => {
      if (e.key === 'Enter' && window.__sent === null) window.__sent = performance.now();
    },
    { capture: true },
  );
};

// armWatch records, in the page, performance.now() of what a researcher
// waits for after Enter in the composer or a click on Build this plan
// (window.__w.start): their own new message (echo), the first text of an
// assistant message that had none when armed (text), a new tool-call card
// (tool), and the strategy's root step showing rootCount (root). Each is
// recorded twice: when it is in the page (page), and when it is on screen
// (view: inside the viewport and every scrolling box around it, and the
// topmost element at that point, so not hidden under something else).
// Mutations, scrolls and animation frames all look again.
const armWatch = ({ rootCount = null, until }) => {
  window.__w?.stop();
  const q = (sel) => [...document.querySelectorAll(sel)];
  const texts = '[data-testid="message"][data-role="assistant"] [data-testid="message-text"]';
  const users = '[data-testid="message"][data-role="user"]';
  const had = { text: new Set(q(texts).filter((el) => el.textContent.trim() !== '')), echo: new Set(q(users)), tool: new Set(q('[data-testid="tool-call"]').map((el) => el.id)) };
  const find = {
    echo: () => q(users).find((el) => !had.echo.has(el)),
    text: () => q(texts).find((el) => !had.text.has(el) && el.textContent.trim() !== ''),
    tool: () => q('[data-testid="tool-call"]').find((el) => !had.tool.has(el.id)),
    root: () => (rootCount === null ? null : q(`[data-testid="graph-step"][data-root="true"][data-count="${rootCount}"] [data-testid="graph-step-count"]`)[0]),
  };
  const onScreen = (el) => {
    let r = el.getBoundingClientRect();
    let box = { l: Math.max(r.left, 0), t: Math.max(r.top, 0), r: Math.min(r.right, innerWidth), b: Math.min(r.bottom, innerHeight) };
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (!['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowY) && !['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX)) continue;
      r = p.getBoundingClientRect();
      box = { l: Math.max(box.l, r.left), t: Math.max(box.t, r.top), r: Math.min(box.r, r.right), b: Math.min(box.b, r.bottom) };
    }
    if (box.r - box.l < 1 || box.b - box.t < 1) return false;
    const hit = document.elementFromPoint((box.l + box.r) / 2, (box.t + box.b) / 2);
    const owner = el.closest('[data-testid="graph-step"]') || el;
    return !!hit && (owner.contains(hit) || hit === owner);
  };
  const obs = new MutationObserver(() => look());
  let raf = 0;
  const input = document.querySelector('[data-testid="message-input"]');
  const onKey = (e) => e.key === 'Enter' && started();
  const onClick = (e) => e.target.closest?.('[data-testid$="build-plan-button"]') && started();
  const w = (window.__w = {
    start: null,
    page: {},
    view: {},
    stop() {
      obs.disconnect();
      cancelAnimationFrame(raf);
      document.removeEventListener('scroll', look, { capture: true });
      input?.removeEventListener('keydown', onKey, { capture: true });
      document.removeEventListener('click', onClick, { capture: true });
    },
  });
  function look() {
    const now = performance.now();
    for (const [name, f] of Object.entries(find)) {
      if (w.view[name] !== undefined) continue;
      const el = f();
      if (!el) continue;
      if (w.page[name] === undefined) w.page[name] = now;
      if (onScreen(el)) w.view[name] = now;
    }
    if (until.every((n) => w.view[n] !== undefined)) w.stop();
  }
  function started() {
    if (w.start === null) w.start = performance.now();
  }
  obs.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
  document.addEventListener('scroll', look, { capture: true, passive: true });
  const frame = () => {
    look();
    raf = requestAnimationFrame(frame);
  };
  raf = requestAnimationFrame(frame);
  input?.addEventListener('keydown', onKey, { capture: true });
  document.addEventListener('click', onClick, { capture: true });
};

// watched waits until the page saw names in view (or timeoutMs passed) and
// returns each one's milliseconds from the start, in the page and on screen.
async function watched(page, names, timeoutMs = 30_000) {
  await page.waitForFunction((names) => window.__w.start !== null && names.every((n) => window.__w.view[n] !== undefined), names, { timeout: timeoutMs });
  return page.evaluate(() => {
    const { start, page, view } = window.__w;
    const since = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v - start]));
    return { page: since(page), view: since(view) };
  });
}

// floors measures, from the page, what the figures below cannot be faster
// than in the same moment: a GET of /healthz (a round trip through the
// server's middleware and nothing else), and a rename of the conversation
// through the JSON API (one short transaction appending one event) until
// its new title is drawn by the live stream (the event's delivery and one
// htmx swap). The own message after Enter is the second of these with the
// turn's start in place of the rename.
async function floors(page, id, i) {
  return page.evaluate(
    async ({ id, i }) => {
      const t0 = performance.now();
      await (await fetch('/healthz', { cache: 'no-store' })).text();
      const get = performance.now() - t0;
      const title = `latency floor ${i} ${Math.random().toString(36).slice(2, 8)}`;
      const shown = new Promise((resolve) => {
        const h = () => document.getElementById('conversation-title');
        const obs = new MutationObserver(() => {
          if (h()?.textContent === title) {
            obs.disconnect();
            resolve(performance.now());
          }
        });
        obs.observe(document.body, { childList: true, subtree: true, characterData: true });
      });
      const t1 = performance.now();
      const res = await fetch(`/api/v1/conversations/${id}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': document.querySelector('meta[name="csrf-token"]')?.content || '' },
        body: JSON.stringify({ title }),
      });
      if (!res.ok) throw new Error(`rename: ${res.status}`);
      const write = performance.now() - t1;
      const drawn = (await shown) - t1;
      return { get, write, drawn };
    },
    { id, i },
  );
}

// The latency figures of issue 29 (make bench-browser, not part of make
// test): Enter to the researcher's own message and to the first assistant
// text on screen, for a short reply and for the acceptance request (whose
// planner calls catalog tools first), then Build this plan on that same page
// to the root's count (89) on screen; beside the floors above, and the
// server's share measured on the JSON event stream without a browser.
// BENCH_RUNS (default 15) runs after two that warm the caches.
test('latency: Enter and Build to what the researcher waits for, beside their floors (offline engine)', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const runs = Number(process.env.BENCH_RUNS || 15);
  const warm = 2;
  const { page } = await b.openAs(alice, { width: 1440, height: 900 });
  const s = {};
  const add = (k, v) => v !== undefined && (s[k] ||= []).push(v);
  const load = [os.loadavg()[0]];
  for (let i = 0; i < warm + runs; i++) {
    const keep = i >= warm;
    const conv = await api.createConversation(`latency ${i}`);
    await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);
    const f = await floors(page, conv.id, i);
    for (const kind of ['short', 'acceptance']) {
      await page.evaluate(armWatch, { until: ['echo', 'text'] });
      await byTestId(page, 'message-input').fill(kind === 'short' ? 'thanks' : acceptanceRequest);
      await byTestId(page, 'message-input').press('Enter');
      const t = await watched(page, ['echo', 'text']);
      await waitIdle(page, api, conv.id);
      if (!keep) continue;
      add(`${kind} Enter → own message in view`, t.view.echo);
      add(`${kind} Enter → first assistant text in page`, t.page.text);
      add(`${kind} Enter → first assistant text in view`, t.view.text);
      add(`${kind} Enter → first tool card in page`, t.page.tool);
    }
    await page.evaluate(armWatch, { rootCount: 89, until: ['root'] });
    const build = page.locator('[data-testid="chat-build-plan-button"]').last();
    await build.click();
    const t = await watched(page, ['root'], 60_000);
    await waitIdle(page, api, conv.id);
    const api0 = await firstDeltaViaAPI(api, (await api.createConversation(`latency api ${i}`)).id, acceptanceRequest);
    if (!keep) continue;
    add('Build → root count in page', t.page.root);
    add('Build → root count in view', t.view.root);
    add('floor: GET /healthz', f.get);
    add('floor: rename write', f.write);
    add('floor: rename → title drawn', f.drawn);
    add('server: POST → turn_start (acceptance, JSON stream)', api0.turnStartMs);
    add('server: POST → first assistant_delta (acceptance, JSON stream)', api0.firstDeltaMs);
    load.push(os.loadavg()[0]);
  }
  results.latency = {
    runs,
    viewport: '1440x900',
    loadAverage1m: { start: load[0], end: load.at(-1), max: Math.max(...load) },
    ms: Object.fromEntries(Object.entries(s).map(([k, v]) => [k, stats(v)])),
  };
  const width = Math.max(...Object.keys(s).map((k) => k.length));
  console.log(`latency over ${runs} runs, load average ${load[0].toFixed(2)} → ${load.at(-1).toFixed(2)} (1 min)`);
  console.log(`${'figure'.padEnd(width)}  median     p90     min     max`);
  for (const [k, v] of Object.entries(results.latency.ms)) {
    console.log(`${k.padEnd(width)}  ${[v.median, v.p90, v.min, v.max].map((x) => String(x).padStart(6)).join('  ')}`);
  }
  await mkdir(env().results, { recursive: true });
  await writeFile(path.join(env().results, 'latency.json'), JSON.stringify(results.latency, null, 2) + '\n');
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
    await page.evaluate(armTimers);
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

// firstDeltaViaAPI starts a turn through the JSON API and times, from the
// POST, the turn_start and the first assistant_delta on the event stream:
// the server's share of the time to the first token, without a browser.
async function firstDeltaViaAPI(api, id, message) {
  const after = (await api.conversation(id)).lastEventSeq;
  const ctrl = new AbortController();
  const res = await fetch(`${api.base}/api/v1/conversations/${id}/events?after=${after}`, {
    headers: { Authorization: `Bearer ${api.user.token}` },
    signal: ctrl.signal,
  });
  const t0 = performance.now();
  await api.startTurn(id, message, 'plan', 'offline');
  const out = { turnStartMs: null, firstDeltaMs: null };
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  try {
    while (out.firstDeltaMs === null) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      for (const m of buf.matchAll(/^event: (\w+)$/gm)) {
        if (m[1] === 'turn_start' && out.turnStartMs === null) out.turnStartMs = Math.round(performance.now() - t0);
        if (m[1] === 'assistant_delta') {
          out.firstDeltaMs = Math.round(performance.now() - t0);
          break;
        }
      }
      buf = buf.slice(buf.lastIndexOf('\n') + 1);
    }
  } finally {
    ctrl.abort();
  }
  await api.waitIdle(id);
  return out;
}

// The offline planner answers these in text, without tools.
const shortReplies = ['thanks', 'ok'];
const planned = [
  'tRNA genes on chromosome 5',
  'snoRNAs or rRNA genes',
  'genes on chromosomes 1 and 2',
  'DNA replication and DNA repair',
  'protein coding genes on the apicoplast',
];

const longKinds = {
  // 100 turns: one planned request in ten, short replies otherwise.
  light: (i) => (i % 10 === 0 ? planned[(i / 10) % planned.length] : shortReplies[i % shortReplies.length]),
  // 100 turns: one planned request in ten, and questions the planner reads
  // as text searches otherwise (each a planning round with tool calls).
  'tool-heavy': (i) => (i % 10 === 0 ? planned[(i / 10) % planned.length] : `Question ${i}: thanks, what next?`),
};

// turnOnPage sends message from the page's composer and measures, until the
// turn ended: Enter to the user's message and to the first token on screen,
// the events the turn appended, and the page's main-thread time (Chrome's
// Performance metrics) in all and per event.
async function turnOnPage(page, cdp, api, id, message) {
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const m0 = await metrics();
  const seq0 = (await api.conversation(id)).lastEventSeq;
  await page.evaluate(armTimers);
  await byTestId(page, 'message-input').fill(message);
  await byTestId(page, 'message-input').press('Enter');
  await page.waitForFunction(() => window.__firstToken !== null && window.__echo !== null, null, { timeout: 30_000 });
  const [sent, echo, first] = await page.evaluate(() => [window.__sent, window.__echo, window.__firstToken]);
  const idle = await waitIdle(page, api, id);
  const m1 = await metrics();
  const events = idle.lastEventSeq - seq0;
  const ms = (k) => Math.round((m1[k] - m0[k]) * 1000);
  return {
    enterToUserMessageMs: Math.round(echo - sent),
    enterToFirstTokenMs: Math.round(first - sent),
    events,
    mainThreadMs: { layout: ms('LayoutDuration'), style: ms('RecalcStyleDuration'), script: ms('ScriptDuration'), tasks: ms('TaskDuration') },
    taskMsPerEvent: Math.round((ms('TaskDuration') / Math.max(events, 1)) * 10) / 10,
  };
}

// openOnDemand times, on the loaded long page, what is drawn on demand: a
// click on the middle folded turn's summary line until its messages are on
// screen, a click on that turn's first tool card until its body is, and the
// same for the plan panel's older artifacts and the first of them.
async function openOnDemand(page) {
  const folded = page.locator('[data-testid="folded-turn"]');
  const n = await folded.count();
  if (n === 0) return null;
  const turn = folded.nth(Math.floor(n / 2));
  const time = (sel, click) =>
    page.evaluate(
      ([sel, click]) =>
        new Promise((resolve, reject) => {
          const t0 = performance.now();
          const obs = new MutationObserver(() => {
            if (document.querySelector(sel)) {
              obs.disconnect();
              resolve(Math.round(performance.now() - t0));
            }
          });
          obs.observe(document.body, { childList: true, subtree: true });
          document.querySelector(click).click();
          setTimeout(() => reject(new Error(`${sel} did not appear`)), 10_000);
        }),
      [sel, click],
    );
  const id = await turn.getAttribute('id');
  const turnMs = await time(`#${id} .turn-body [data-testid="message"]`, `#${id} [data-testid="turn-summary"]`);
  const cards = await page.locator(`#${id} .turn-body [data-testid="tool-call"]`).count();
  const cardMs = cards ? await time(`#${id} .turn-body [data-testid="tool-body"] pre`, `#${id} .turn-body [data-testid="tool-call"] > summary`) : null;
  let olderArtifactsMs = null;
  let artifactMs = null;
  if (await page.locator('[data-testid="older-artifacts"]').count()) {
    olderArtifactsMs = await time('#older-artifacts [data-testid="artifact"]', '[data-testid="older-artifacts"]');
    artifactMs = await time('#older-artifacts .artifact-body > *:not(p.muted)', '#older-artifacts [data-testid="artifact-summary"]');
  }
  return { foldedTurnToMessagesMs: turnMs, toolCardToBodyMs: cardMs, olderArtifactsToListMs: olderArtifactsMs, artifactToBodyMs: artifactMs };
}

for (const [kind, messageFor] of Object.entries(longKinds)) {
  test(`a 200-message conversation (${kind}): load time, DOM size, and a new turn on it`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    const conv = await api.createConversation(`Two hundred messages (${kind})`);
    const built = Date.now();
    const baseline = await firstDeltaViaAPI(api, (await api.createConversation('baseline')).id, 'tRNA genes on chromosome 7');
    for (let i = 0; i < 100; i++) {
      await api.startTurn(conv.id, messageFor(i), 'plan', 'offline');
      await api.waitIdle(conv.id);
    }
    const state = await api.conversation(conv.id);
    const { page } = await b.openAs(alice);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const before = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
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
          responseEndMs: Math.round(nav.responseEnd),
          domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd),
          loadMs: Math.round(nav.loadEventEnd),
          htmlBytes: nav.decodedBodySize,
          htmlTransferBytes: nav.transferSize,
          domElements: document.getElementsByTagName('*').length,
          turnsOnScreen: chat.querySelectorAll('[data-turn-id]').length,
          foldedTurns: chat.querySelectorAll('[data-testid="folded-turn"]').length,
          messagesOnScreen: msgs.length,
          userMessagesOnScreen: chat.querySelectorAll('[data-testid="message"][data-role="user"]').length,
          toolCards: chat.querySelectorAll('[data-testid="tool-call"]').length,
          artifacts: document.querySelectorAll('[data-testid="artifact"]').length,
          olderArtifactsFolded: Number(document.querySelector('[data-testid="older-artifacts"]')?.dataset.count || 0),
          lastMessageInView: lastMsg ? lastMsg.top < window.innerHeight && lastMsg.bottom > 0 : false,
        };
      });
      loads.push({ wall, status: res.status(), ...last });
    }
    const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const opening = await openOnDemand(page);
    // The new turn below is measured on the page as loaded, nothing opened.
    await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);
    // A new turn on the long page: Enter to the user's message and to the
    // first token on screen; then the same through the API alone.
    const onLong = await turnOnPage(page, cdp, api, conv.id, 'tRNA genes on chromosome 7');
    // Two more planned turns on the long page, each from a fresh load, for
    // more than one sample of Enter to the first token.
    const firstTokens = [onLong.enterToFirstTokenMs];
    for (const chromosome of [8, 10]) {
      await page.goto(`/conversations/${conv.id}`);
      await waitConnected(page);
      firstTokens.push((await turnOnPage(page, cdp, api, conv.id, `tRNA genes on chromosome ${chromosome}`)).enterToFirstTokenMs);
    }
    const small = await api.createConversation('small');
    await page.goto(`/conversations/${small.id}`);
    await waitConnected(page);
    const onFresh = await turnOnPage(page, cdp, api, small.id, 'tRNA genes on chromosome 7');
    const viaAPI = await firstDeltaViaAPI(api, conv.id, 'tRNA genes on chromosome 9');
    const phone = await b.openAs(alice, viewports.phone);
    const t1 = Date.now();
    await phone.page.goto(`/conversations/${conv.id}`);
    await waitConnected(phone.page);
    results[`longConversation ${kind}`] = {
      buildSeconds: Math.round((Date.now() - built) / 1000),
      apiMessageRows: state.messages.length,
      apiUserAndAssistantRows: state.messages.filter((m) => m.role === 'user' || m.role === 'assistant').length,
      page: last,
      wallMs: stats(loads.map((l) => l.wall)),
      responseEndMs: stats(loads.map((l) => l.responseEndMs)),
      domContentLoadedMs: stats(loads.map((l) => l.domContentLoadedMs)),
      mainThreadMsPerLoad: Object.fromEntries(
        ['LayoutDuration', 'RecalcStyleDuration', 'ScriptDuration', 'TaskDuration'].map((k) => [k, Math.round(((metrics[k] - before[k]) * 1000) / loads.length)]),
      ),
      jsHeapUsedMB: Math.round(metrics.JSHeapUsedSize / 1e5) / 10,
      openOnDemand: opening,
      newTurnOnPage: onLong,
      newTurnsOnPageEnterToFirstTokenMs: stats(firstTokens),
      sameTurnOnAFreshConversationPage: onFresh,
      newTurnViaAPI: viaAPI,
      freshConversationViaAPI: baseline,
      phoneLoadWallMs: Date.now() - t1,
    };
    // Every turn is on the page: the latest whole, older ones folded into
    // their summary lines.
    assert.ok(last.turnsOnScreen >= 100, `${last.turnsOnScreen} turns on screen`);
  });
}
