// The live page under a slow delegation (scripted models with latency, picked
// in the model picker): reloading in the middle resumes the panel and the
// text with nothing twice and nothing missing; Stop ends the turn cancelled
// and gives the composer back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';
import { startProxy } from './lib/proxy.js';
import {
  acceptanceRequest,
  newConversation,
  send,
  waitIdle,
  waitConnected,
  chatState,
  toolCards,
  nodesState,
  waitNodes,
  graphState,
  buildPlan,
  openFoldedTurns,
  turnsState,
} from './lib/conversation.js';

const b = useBrowser();

test('reloading in the middle of a delegation resumes with no duplicate and nothing missing', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const { page, context, problems } = await b.openAs(alice);
  const id = await newConversation(page);
  await send(page, acceptanceRequest, { mode: 'plan', model: 'scripted:e2e_reload.json' });
  await api.waitIdle(id);
  await buildPlan(page);

  // Sub-agent calls take 2 s each: reload while the tasks run.
  await page.locator('[data-testid="node"][data-status="running"]').first().waitFor({ timeout: 20_000 });
  await screenshot(page, 'delegation-running');
  const beforeReload = await nodesState(page);
  assert.ok(beforeReload.some((n) => n.status === 'queued'), `combines wait for their inputs: ${JSON.stringify(beforeReload)}`);
  await page.reload();
  await waitConnected(page);
  const afterReload = await nodesState(page);
  assert.equal(afterReload.length, 5);
  const executing = await api.conversation(id);
  assert.ok(
    executing.turns.some((t) => t.status === 'running'),
    'the reload happened while the delegation was still running (make the script slower if this fails)',
  );
  // Reload once more in the middle, after a node has ended if one has.
  await page.locator('[data-testid="node"][data-status="done"]').first().waitFor({ timeout: 20_000 });
  await page.reload();
  await waitConnected(page);

  await waitNodes(page, 5, ['done']);
  const final = await waitIdle(page, api, id);

  // Compare the live page with a page rendered from the database afterwards,
  // and both with the API's state.
  const fresh = await context.newPage();
  await fresh.goto(`/conversations/${id}`);
  await waitConnected(fresh);
  const [live, rendered] = [await pageState(page), await pageState(fresh)];
  assert.deepEqual(live, rendered, 'the live page equals a fresh render of the conversation');
  const texts = final.messages.filter((m) => m.role === 'assistant' && m.content.trim() !== '');
  assert.ok(texts.length >= 3, 'the planner and the executor wrote text');
  const chatText = live.chat.map((m) => m.text).join('\n');
  for (const m of texts) {
    const first = m.content.split('\n')[0].replace(/[*_`#>]/g, '').trim().slice(0, 60);
    const want = countOf(texts.map((t) => t.content).join('\n'), first);
    assert.equal(countOf(chatText, first), want, `"${first}" is on the page as often as in the API's messages`);
  }
  assert.equal(countOf(chatText, acceptanceRequest), 1);
  assert.equal(countOf(chatText, 'Delegating the plan.'), 1);
  assert.equal(countOf(chatText, 'The strategy is built'), 1);
  assert.deepEqual(
    live.nodes.map((n) => [n.id, n.status]),
    final.delegation.nodes.map((n) => [n.nodeId, n.status]),
  );
  const root = live.graph.find((s) => s.root);
  assert.equal(root?.count, 89);
  assert.deepEqual(problems.pageErrors, []);
  await fresh.close();
});

test('losing the connection in the middle shows Reconnecting, then resumes with no duplicate and nothing missing', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const proxy = await startProxy(env().baseURL);
  try {
    const { page, context, problems } = await b.open();
    // Everything goes through the proxy (cookies are per host, not per port).
    await page.goto(proxy.url + '/signin');
    await page.getByLabel('Email').fill(alice.email);
    await page.getByLabel('Password').fill(alice.password);
    await Promise.all([page.waitForURL((u) => u.pathname === '/'), page.getByRole('button', { name: 'Sign in' }).click()]);
    const id = await newConversation(page);
    await send(page, acceptanceRequest, { mode: 'plan', model: 'scripted:e2e_reconnect.json' });
    await api.waitIdle(id);
    await buildPlan(page);
    await page.locator('[data-testid="node"][data-status="running"]').first().waitFor({ timeout: 20_000 });

    // The connection drops: the indicator says so; events go on on the
    // server meanwhile.
    proxy.cut();
    const seqAtCut = (await api.conversation(id)).lastEventSeq;
    const status = byTestId(page, 'connection-status');
    await page.locator('[data-testid="connection-status"]:not([data-state="open"])').waitFor({ timeout: 10_000 });
    assert.match(await status.getAttribute('data-state'), /reconnecting|connecting/);
    assert.ok((await status.innerText()).trim().length > 0, 'the state is written, not only coloured');
    await screenshot(page, 'reconnecting');
    await page.waitForTimeout(2500);
    const seqAtRestore = (await api.conversation(id)).lastEventSeq;
    assert.ok(seqAtRestore > seqAtCut, `events happened while the page was cut off (${seqAtCut} -> ${seqAtRestore})`);
    proxy.restore();
    await waitConnected(page, 30_000);

    await waitNodes(page, 5, ['done']);
    const final = await waitIdle(page, api, id);
    const fresh = await context.newPage();
    await fresh.goto(`/conversations/${id}`);
    await waitConnected(fresh);
    assert.deepEqual(await pageState(page), await pageState(fresh), 'the reconnected page equals a fresh render');
    const chatText = (await chatState(page)).map((m) => m.text).join('\n');
    assert.equal(countOf(chatText, 'Delegating the plan.'), 1);
    assert.equal(countOf(chatText, 'The strategy is built'), 1);
    assert.equal((await graphState(page)).find((s) => s.root)?.count, 89);
    assert.equal(final.turns.at(-1).status, 'completed');
    assert.deepEqual(problems.pageErrors, []);
    await fresh.close();
  } finally {
    await proxy.close();
  }
});

test('a message sent during a build is queued and sent when the build ends', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const { page, problems } = await b.openAs(alice);
  const id = await newConversation(page);
  await send(page, acceptanceRequest, { mode: 'plan', model: 'scripted:e2e_queue.json' });
  await api.waitIdle(id);
  await buildPlan(page);
  await page.locator('[data-testid="node"][data-status="running"]').first().waitFor({ timeout: 20_000 });

  const composer = byTestId(page, 'composer');
  const input = byTestId(composer, 'message-input');
  assert.equal(await input.isEnabled(), true, 'the researcher can type while the build runs');
  await byTestId(composer, 'mode-plan').check();
  await byTestId(composer, 'model-select').selectOption('offline');
  const question = 'Which searches find genes by GO term?';
  await input.fill(question);
  await input.press('Enter');
  const wait = byTestId(composer, 'composer-wait');
  assert.match(await wait.innerText(), /^Queued: /);
  assert.equal((await api.conversation(id)).turns.length, 2, 'nothing was sent while the build ran');

  // The build ends; the queued message goes out as the next turn.
  await page.waitForFunction((q) => {
    const users = document.querySelectorAll('[data-testid="chat"] [data-testid="message"][data-role="user"]');
    return users.length > 0 && users[users.length - 1].textContent.includes(q);
  }, question, { timeout: 60_000 });
  const conv = await api.waitIdle(id);
  assert.equal(conv.turns.length, 3);
  assert.equal(conv.turns[1].status, 'completed', 'the build finished before the queued message was sent');
  assert.equal(conv.turns[2].status, 'completed');
  assert.equal(await input.inputValue(), '', 'the sent message left the box');
  assert.equal(await wait.isHidden(), true, 'no note once nothing waits');
  assert.deepEqual(problems, { console: [], pageErrors: [], dialogs: [] });
});

test('Stop in the middle of a delegation cancels the turn and its nodes, and the composer works again', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const { page, problems } = await b.openAs(alice);
  const id = await newConversation(page);
  await send(page, acceptanceRequest, { mode: 'plan', model: 'scripted:e2e_stop.json' });
  await api.waitIdle(id);
  await buildPlan(page);

  // The first sub-agent calls hang for a minute: Stop them.
  await page.locator('[data-testid="node"][data-status="running"]').first().waitFor({ timeout: 20_000 });
  // A message typed while the turn runs is queued, and the composer says so.
  const composer = byTestId(page, 'composer');
  const wait = byTestId(composer, 'composer-wait');
  assert.match(await wait.innerText(), /A turn is running: Enter queues your message/);
  const queuedText = 'Which searches find genes by GO term?';
  await byTestId(composer, 'message-input').fill(queuedText);
  await byTestId(composer, 'message-input').press('Enter');
  assert.match(await wait.innerText(), /^Queued: your message is sent when this turn ends/);
  const stop = byTestId(page, 'stop-button');
  assert.equal(await stop.isVisible(), true);
  assert.equal(await stop.isEnabled(), true);
  const stoppedAt = Date.now();
  await stop.click();

  await waitNodes(page, 5, ['cancelled'], 15_000);
  const conv = await waitIdle(page, api, id, 15_000);
  const took = Date.now() - stoppedAt;
  assert.ok(took < 10_000, `the turn ended ${took} ms after Stop`);
  const execute = conv.turns.at(-1);
  assert.equal(execute.status, 'cancelled');
  assert.ok(conv.delegation.nodes.every((n) => n.status === 'cancelled'), JSON.stringify(conv.delegation.nodes));
  assert.equal(await stop.isVisible(), false, 'Stop is hidden once the turn ended');
  // The stopped turn did not finish, so the queued message stays unsent.
  assert.match(await wait.innerText(), /^Not sent: the turn did not finish/);
  assert.equal(await byTestId(composer, 'message-input').inputValue(), queuedText);
  assert.deepEqual((await toolCards(page)).filter((c) => c.status === 'running'), [], 'no tool card is left running');
  assert.equal(await byTestId(page, 'graph-step').count(), 0, 'nothing was built');
  await screenshot(page, 'delegation-stopped');

  // The composer is usable again: a new turn (offline) runs and answers.
  // It is the third turn: the first folds into its summary line.
  const before = (await chatState(page)).length;
  await send(page, 'Which searches find genes by GO term?', { mode: 'plan', model: 'offline' });
  await waitIdle(page, api, id);
  assert.deepEqual((await turnsState(page)).map((t) => t.folded), [true, false, false]);
  await openFoldedTurns(page);
  const chat = await chatState(page);
  assert.ok(chat.length > before + 1, 'the new turn answered');
  assert.equal(chat.at(-1).role, 'assistant');
  assert.deepEqual(problems.pageErrors, []);
});

// pageState reads what the page shows: which turns are folded, then, with
// every folded turn opened, the whole chat, its tool cards, the sub-agents
// and the graph.
async function pageState(page) {
  const turns = await turnsState(page);
  await openFoldedTurns(page);
  return {
    turns,
    chat: await chatState(page),
    tools: await toolCards(page),
    nodes: await nodesState(page),
    graph: await graphState(page),
    usage: await byTestId(page, 'turn-usage').count(),
  };
}

function countOf(haystack, needle) {
  if (!needle) return 0;
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}
