// The offline engine's acceptance scenario, done by clicking: plan the
// request, see the planning artifact and the draft tree, Build this plan,
// watch the sub-agents finish, read the counts on the graph (89 at the root,
// 108 on the union) and page through the root's results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';
import {
  acceptanceRequest,
  newConversation,
  send,
  waitIdle,
  chatState,
  toolCards,
  nodesState,
  waitNodes,
  graphState,
  buildPlan,
} from './lib/conversation.js';

const b = useBrowser();

test('plan, build and read the acceptance strategy by clicking (offline engine)', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const { page, problems } = await b.openAs(alice);
  const id = await newConversation(page);

  // The composer starts in plan mode with the default model (offline).
  const composer = byTestId(page, 'composer');
  assert.equal(await byTestId(composer, 'mode-plan').isChecked(), true);
  assert.match(await byTestId(composer, 'current-mode').innerText(), /plan/i);
  const models = await byTestId(composer, 'model-select').evaluate((s) => ({
    value: s.value,
    options: [...s.options].map((o) => o.value),
  }));
  assert.equal(models.value, 'offline');
  assert.ok(models.options.includes('scripted:e2e_reload.json'), 'scripted models are offered from the scripts directory');

  await send(page, acceptanceRequest);
  await waitIdle(page, api, id);

  // The chat: the request once, the planner's answer, its tool calls.
  const chat = await chatState(page);
  assert.deepEqual(
    chat.filter((m) => m.role === 'user').map((m) => m.text),
    [acceptanceRequest],
  );
  assert.ok(chat.some((m) => m.role === 'assistant' && m.text.length > 0), 'the planner answered');
  const cards = await toolCards(page);
  for (const name of ['search_for_searches', 'get_search_parameters', 'save_planning_artifact', 'save_delegation_draft', 'request_executor_build']) {
    assert.ok(cards.some((c) => c.name === name && c.status === 'ok'), `a finished ${name} card (${JSON.stringify(cards)})`);
  }
  assert.ok((await byTestId(page, 'turn-usage').count()) >= 1, 'the turn shows its token usage');

  // The artifacts: a planning artifact and the draft tree, valid, pending.
  const artifacts = byTestId(page, 'artifacts');
  await artifacts.locator('[data-testid="artifact"][data-kind="planning"]').first().waitFor();
  const draft = artifacts.locator('[data-testid="artifact"][data-kind="delegation_draft"]').last();
  const tree = byTestId(draft, 'draft-tree');
  const nodes = await tree.locator('[data-testid="draft-node"]').evaluateAll((els) =>
    els.map((el) => ({ kind: el.dataset.kind, operator: el.dataset.operator || '' })),
  );
  assert.equal(nodes.filter((n) => n.kind === 'task').length, 3, JSON.stringify(nodes));
  assert.deepEqual(
    nodes.filter((n) => n.kind === 'combine').map((n) => n.operator).sort(),
    ['MINUS', 'UNION'],
  );
  assert.equal(await byTestId(draft, 'draft-validation').getAttribute('data-valid'), 'true');
  const treeText = await tree.innerText();
  for (const want of ['GO:0006260', 'GO:0006281']) assert.ok(treeText.includes(want), `the tree names ${want}`);
  await tree.scrollIntoViewIfNeeded();
  await screenshot(page, 'planning-done');

  // Build this plan: the execute turn delegates; every node ends done.
  await buildPlan(page);
  await waitNodes(page, 5, ['done']);
  await waitIdle(page, api, id);
  assert.equal(await byTestId(page, 'build-plan-button').count(), 0, 'the handoff is no longer pending');
  assert.match(await byTestId(page, 'handoff-status').last().innerText(), /accepted|approved/i);
  const panel = await nodesState(page);
  assert.equal(panel.length, 5);
  for (const n of panel.filter((n) => n.toolCalls > 0)) assert.match(n.attempt, /1/);
  assert.ok(panel.filter((n) => n.toolCalls > 0).length >= 3, `the three tasks show their tool calls: ${JSON.stringify(panel)}`);

  // The graph: the root counts 89, the union 108, offline marked.
  const graph = byTestId(page, 'strategy-graph');
  await graph.waitFor();
  assert.equal(await graph.evaluate((el) => el.tagName.toLowerCase()), 'svg');
  const steps = await graphState(page);
  const root = steps.filter((s) => s.root);
  assert.equal(root.length, 1, JSON.stringify(steps));
  assert.equal(root[0].count, 89);
  assert.ok(steps.some((s) => s.kind === 'combine' && s.count === 108), `a union step of 108: ${JSON.stringify(steps)}`);
  assert.equal(steps.length, 5);
  assert.match(await graph.textContent(), /offline/i);
  const snapshot = await api.strategy(id);
  assert.equal(snapshot.rootStepId, root[0].id);
  await graph.scrollIntoViewIfNeeded();
  await screenshot(page, 'strategy-built');

  // The root's results: 89 rows in pages, next and previous.
  await graph.locator(`[data-testid="graph-step"][data-step-id="${root[0].id}"]`).click();
  const table = byTestId(page, 'results-table');
  await table.locator('[data-testid="result-row"]').first().waitFor();
  const firstPage = await resultIds(table);
  assert.ok(firstPage.length > 0 && firstPage.length < 89, `a page of rows, not all 89 (${firstPage.length})`);
  assert.match(firstPage[0], /^PF3D7_/);
  await screenshot(page, 'results-table');
  const seen = new Set(firstPage);
  let pages = 1;
  while (await byTestId(page, 'results-next').isEnabled()) {
    const before = await resultIds(table);
    await byTestId(page, 'results-next').click();
    await page.waitForFunction(
      (first) => document.querySelector('[data-testid="result-row"]')?.innerText.split(/\s/)[0] !== first,
      before[0],
    );
    for (const g of await resultIds(table)) {
      assert.ok(!seen.has(g), `gene ${g} shown on two pages`);
      seen.add(g);
    }
    if (++pages > 20) break;
  }
  assert.equal(seen.size, 89, 'the pages together list the 89 genes');
  await byTestId(page, 'results-prev').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="result-row"]').length > 0);
  assert.ok((await resultIds(table)).every((g) => seen.has(g)));

  // A follow-up planned: the plan panel's plan now reads the follow-up,
  // under it Build this plan alone; the approval of the build above was
  // of the plan's earlier version, and is only counted.
  await send(page, 'now also exclude chromosome 5', { mode: 'plan', model: 'offline' });
  await waitIdle(page, api, id);
  const revised = byTestId(page, 'artifact').filter({ has: page.locator('[data-testid="build-plan-button"]') });
  await revised.waitFor();
  assert.equal(await byTestId(revised, 'handoff').count(), 1, 'one build request under the plan as it reads now');
  assert.equal(await byTestId(revised, 'handoff-status').count(), 0, 'no "Approved" under a plan not approved');
  assert.equal((await byTestId(revised, 'handoffs-earlier').innerText()).trim(), '1 earlier version of this plan was built.');

  assert.deepEqual(problems.pageErrors, []);
  assert.deepEqual(problems.dialogs, []);
});

async function resultIds(table) {
  return table.locator('[data-testid="result-row"]').evaluateAll((rows) =>
    rows.map((r) => (r.querySelector('td')?.innerText || r.innerText).trim().split(/\s/)[0]),
  );
}
