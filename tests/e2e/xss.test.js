// Whatever a user or a model writes stays text: a message with a <script>
// and an <img onerror> is shown as typed, runs nothing and adds no element,
// live and after a reload; the same for a conversation title.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api } from './lib/harness.js';
import { newConversation, send, waitIdle, chatState, waitConnected } from './lib/conversation.js';

const b = useBrowser();

const payload =
  'genes <script>window.__xss = "script"; alert("script")</script> ' +
  '<img src=x onerror="window.__xss = \'img\'; alert(\'img\')"> ' +
  '<a href="javascript:alert(1)">link</a> [md](javascript:alert(2)) <svg onload=alert(3)>';

async function injected(page) {
  return page.evaluate(() => ({
    flag: window.__xss ?? null,
    img: document.querySelectorAll('main img[src="x"], main img[onerror]').length,
    script: [...document.querySelectorAll('main script')].filter((s) => s.textContent.includes('__xss')).length,
    js: document.querySelectorAll('main a[href^="javascript:"]').length,
    svg: document.querySelectorAll('main svg[onload]').length,
  }));
}

const clean = { flag: null, img: 0, script: 0, js: 0, svg: 0 };

test('a message containing <script> and <img onerror> stays text', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const { page, problems } = await b.openAs(alice);
  const id = await newConversation(page);
  await send(page, payload, { mode: 'plan' });
  await waitIdle(page, api, id);

  const chat = await chatState(page);
  const mine = chat.filter((m) => m.role === 'user');
  assert.equal(mine.length, 1);
  assert.equal(mine[0].text, payload, 'the message is shown exactly as typed');
  assert.deepEqual(await injected(page), clean, 'live: nothing ran, no element was added');

  await page.reload();
  await waitConnected(page);
  assert.equal((await chatState(page)).filter((m) => m.role === 'user')[0].text, payload);
  assert.deepEqual(await injected(page), clean, 'rendered from the database: nothing ran');
  assert.deepEqual(problems.dialogs, []);
});

test('a conversation title with HTML stays text on the list and the page', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const title = '<img src=x onerror="alert(\'title\')"><script>alert("t")</script>';
  const conv = await api.createConversation(title);
  const { page, problems } = await b.openAs(alice);
  const item = page.locator(`[data-testid="conversation-item"][data-conversation-id="${conv.id}"]`);
  assert.equal((await item.innerText()).includes(title), true);
  assert.deepEqual(await injected(page), clean);
  await page.goto(`/conversations/${conv.id}`);
  await waitConnected(page);
  assert.deepEqual(await injected(page), clean);
  assert.deepEqual(problems.dialogs, []);
  await api.call('DELETE', `/conversations/${conv.id}`);
});
