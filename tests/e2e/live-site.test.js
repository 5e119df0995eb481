// One whole conversation on a live site, against the WDK fake (cmd/wdkfake,
// started by scripts/e2e.sh, answering from the offline snapshot): store a
// VEuPathDB API key on the settings page, start a conversation on
// plasmodb-live, plan and build the acceptance strategy with the offline
// engine, read the counts with the live site's provenance and the root's
// results, save the strategy to the VEuPathDB account and open its link;
// then the key is revoked at the site and the next turn says so, ends, and
// leaves what was built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';
import {
  acceptanceRequest,
  newConversation,
  send,
  waitIdle,
  chatState,
  waitNodes,
  graphState,
  buildPlan,
} from './lib/conversation.js';

const b = useBrowser();

/** fake is the WDK fake's address (scripts/e2e.sh passes it). */
function fakeURL() {
  const u = process.env.E2E_WDK_FAKE_URL;
  if (!u) throw new Error('E2E_WDK_FAKE_URL is not set: run the browser tests with scripts/e2e.sh (make test-e2e)');
  return u;
}

/** control calls the fake's control endpoints (not part of WDK). */
async function control(route) {
  const res = await fetch(fakeURL() + route, { method: 'POST' });
  assert.ok(res.ok, `POST ${route}: ${res.status} ${await res.text()}`);
}

test('a whole conversation on a live site, then a key revoked at the site', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const key = `e2e-key-${Date.now()}`;
  await control(`/__fake/keys?key=${key}&user=4242`);
  const { page, problems } = await b.openAs(alice);

  // The settings page: the key is checked with the site, then stored.
  await page.goto('/settings');
  const form = byTestId(page, 'store-key-form');
  await form.getByLabel('Site', { exact: true }).selectOption('plasmodb-live');
  await form.getByLabel('API key', { exact: true }).fill(key);
  await Promise.all([page.waitForURL((u) => u.pathname === '/settings'), form.getByRole('button', { name: /check and store/i }).click()]);
  assert.equal(await byTestId(page, 'settings-error').count(), 0, await page.locator('main').innerText());
  await byTestId(page, 'settings-notice').waitFor();
  assert.match(await byTestId(page, 'key-plasmodb-live').innerText(), /stored/);
  await screenshot(page, 'live-key-stored');

  // A conversation on the live site, picked in the site picker.
  const id = await newConversation(page, 'plasmodb-live');
  assert.equal((await api.conversation(id)).siteId, 'plasmodb-live');

  // Plan with the offline engine; the planner reads the live catalog.
  await send(page, acceptanceRequest, { mode: 'plan', model: 'offline' });
  await waitIdle(page, api, id);
  await buildPlan(page);
  await waitNodes(page, 5, ['done']);
  await waitIdle(page, api, id);

  // Counts from the site (the fake answers from the snapshot's genes).
  const graph = byTestId(page, 'strategy-graph');
  await graph.waitFor();
  const steps = await graphState(page);
  const root = steps.find((s) => s.root);
  assert.equal(steps.length, 5, JSON.stringify(steps));
  assert.equal(root?.count, 89, JSON.stringify(steps));
  assert.doesNotMatch(await graph.textContent(), /offline/i, 'a live step is not marked offline');

  // The root's results, with the live site named as their source.
  await graph.locator(`[data-testid="graph-step"][data-step-id="${root.id}"]`).click();
  const table = byTestId(page, 'results-table');
  await table.locator('[data-testid="result-row"]').first().waitFor();
  const countText = await byTestId(table, 'results-count').innerText();
  assert.match(countText, /89/);
  assert.match(countText, /PlasmoDB \(live/, `the count names the live site as its source: ${countText}`);
  assert.doesNotMatch(countText, /offline snapshot/i, countText);
  const first = (await table.locator('[data-testid="result-row"]').first().innerText()).trim();
  assert.match(first, /^PF3D7_/);
  await screenshot(page, 'live-results');

  // GO enrichment is computed from the offline snapshot only: a live step
  // says so (API: 422 ENRICHMENT_UNAVAILABLE; the panel: the reason).
  const refused = await api.call('GET', `/conversations/${id}/strategy/steps/${root.id}/enrichment`, undefined, { okStatuses: [422] });
  assert.equal(refused.body.error.code, 'ENRICHMENT_UNAVAILABLE');
  await byTestId(table, 'enrichment-button').click();
  assert.match(await byTestId(page, 'enrichment-error').innerText(), /GO Enrichment analysis/);

  // Save to VEuPathDB: the link opens the strategy on the site.
  await byTestId(page, 'save-veupathdb').click();
  const link = byTestId(page, 'saved-strategy-link');
  await link.waitFor();
  const href = await link.getAttribute('href');
  const m = href.match(/^(.*)\/plasmo\/app\/workspace\/strategies\/(\d+)$/);
  assert.ok(m, `the link ${href} opens a strategy of the site`);
  assert.equal(m[1], fakeURL());
  assert.match(await byTestId(page, 'saved-strategy').innerText(), new RegExp(`strategy ${m[2]}\\b`));
  const [site] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  await site.waitForLoadState();
  assert.equal(await byTestId(site, 'wdk-strategy-id').innerText(), m[2]);
  assert.equal(await byTestId(site, 'wdk-strategy-size').innerText(), '89');
  assert.equal(await byTestId(site, 'wdk-strategy-name').innerText(), (await api.conversation(id)).title, 'saved under the conversation title');
  await site.close();
  await screenshot(page, 'live-saved');

  // A follow-up is planned while the key works; the key is revoked at the
  // site (regenerated by its owner, say) in the middle of the build, when
  // the new step is first run in the account. The turn says which step
  // failed and what to do, and ends.
  const before = await graphState(page);
  await send(page, 'now also exclude chromosome 5', { mode: 'plan', model: 'offline' });
  await waitIdle(page, api, id);
  await control(`/__fake/revoke?key=${key}&at=/users/`);
  await buildPlan(page);
  const conv = await waitIdle(page, api, id);
  const turn = conv.turns.at(-1);
  assert.equal(turn.status, 'completed', `the turn ends cleanly: ${JSON.stringify(turn)}`);
  const lastAnswer = () =>
    page.evaluate(() => {
      const els = document.querySelectorAll('[data-testid="chat"] [data-testid="message"][data-role="assistant"]');
      return els.length ? els[els.length - 1].querySelector('[data-testid="message-text"]')?.innerText || '' : '';
    });
  await page
    .waitForFunction(
      () => {
        const els = document.querySelectorAll('[data-testid="chat"] [data-testid="message"][data-role="assistant"]');
        return els.length && /API key/.test(els[els.length - 1].innerText);
      },
      null,
      { timeout: 15_000 },
    )
    .catch(() => {});
  const said = await lastAnswer();
  // The site refuses either the new step's count or, since steps are sent
  // to the site when they are made, the combine that needs it; the message
  // names the step either way.
  assert.match(said, /step s\d+: count failed|combine s\d+ \w+ s\d+: /, `the message names the step: ${said}`);
  assert.match(said, /refused your VEuPathDB API key/, said);
  assert.match(said, /Settings page/, `the message says what to do: ${said}`);
  await screenshot(page, 'live-key-revoked');

  // What was built stays, with its counts; a step the failed build added
  // (the refused step, or the combine that needed it: which one the site
  // refuses depends on timing) has no count rather than a made-up one. The
  // graph may take the turn's last snapshot after its message.
  await page
    .waitForFunction(
      (n) => document.querySelectorAll('[data-testid="strategy-graph"] [data-testid="graph-step"]').length > n,
      before.length,
      { timeout: 15_000 },
    )
    .catch(() => {});
  const after = await graphState(page);
  for (const s of before) {
    assert.equal(after.find((a) => a.id === s.id)?.count, s.count, `step ${s.id} keeps its count: ${JSON.stringify(after)}`);
  }
  // The refused step has no count, and neither has a combine built on it;
  // a search the site ran before the refusal keeps the count it returned.
  const added = after.filter((a) => !before.some((b) => b.id === a.id));
  for (const s of added.filter((a) => a.kind === 'combine')) {
    assert.equal(s.count, null, `the new combine ${s.id} has no count: ${JSON.stringify(after)}`);
  }
  // When the site refused the combine itself, the combine was never made
  // and the search before it keeps its count; when it refused a step's
  // count, that step shows none.
  if (!/combine s\d+ \w+ s\d+: /.test(said)) {
    assert.ok(added.length === 0 || added.some((a) => a.count === null), `a refused step has no count: ${JSON.stringify(after)}`);
  }
  assert.deepEqual(problems.pageErrors, []);
});
