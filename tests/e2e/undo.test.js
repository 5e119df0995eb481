// Undo by turn: the changes one turn made are one unit of Undo, so one
// click returns the strategy of the previous turn (never a half-built
// one), and the history offers every earlier turn's strategy, one click
// away. At 1440×900 and 390×844.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api } from './lib/harness.js';
import { waitConnected, graphState, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

for (const [name, viewport] of Object.entries(sizes)) {
  test(`one Undo returns the strategy of the previous turn, and the history returns to any (${name})`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    const conv = await buildAcceptance(api, `Undo by turn (${name})`);
    const built = await api.strategy(conv.id);
    // A follow-up turn changes the strategy in several versions.
    await api.startTurn(conv.id, 'now also exclude chromosome 5', 'execute', 'offline');
    await api.waitIdle(conv.id);
    const followed = await api.strategy(conv.id);
    assert.ok(followed.version >= built.version + 2, `the follow-up made ${followed.version - built.version} changes; this test wants several`);
    const followedRoot = followed.steps.find((s) => s.id === followed.rootStepId);
    assert.notEqual(followedRoot.count, 89, 'the follow-up changed the result');

    const { page, problems } = await b.openAs(alice, viewport);
    await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);
    // The follow-up's task that reused the build's result is named by
    // that result's name (its id is shown apart, as every node's step is).
    const labels = await page.$$eval('[data-testid="node"] .node-label', (els) => els.map((el) => el.textContent.trim()));
    assert.ok(labels.includes(built.steps.find((s) => s.id === built.rootStepId).displayName), labels.join(' | '));
    for (const l of labels) assert.doesNotMatch(l, /\bs\d+\b/, `a task is named "${l}"`);
    const undo = byTestId(page, 'undo-button');
    assert.match(await undo.innerText(), /exclude chromosome 5/, 'Undo names the turn it reverts');
    // The history offers the strategy before the follow-up, with its count.
    await byTestId(page, 'strategy-history').locator('summary').click();
    const before = await byTestId(page, 'history-item').allInnerTexts();
    assert.match(before[0], /^Before “now also exclude chromosome 5” — 89 genes/, before.join(' | '));

    // One click: the strategy as the build left it, one tree with its count.
    await undo.click();
    await page.waitForFunction(() => document.querySelector('[data-testid="strategy-root-count"]')?.textContent.trim() === '89 genes');
    const after = await api.strategy(conv.id);
    assert.equal(after.version, followed.version + 1, 'one undo is one new version');
    assert.equal(after.rootStepId, built.rootStepId);
    assert.deepEqual(after.steps.map((s) => s.id).sort(), built.steps.map((s) => s.id).sort(), 'the steps of the build, none of the follow-up');
    assert.equal((await graphState(page)).filter((s) => s.root).length, 1, 'one tree on screen');

    // The history lists the version before each turn with its result; one
    // click returns to the strategy before the build (empty).
    const history = byTestId(page, 'strategy-history');
    await history.locator('summary').click();
    const items = byTestId(history, 'history-item');
    const texts = await items.allInnerTexts();
    assert.match(texts[0], new RegExp(`^Latest — ${followedRoot.count} genes`), texts.join(' | '));
    assert.ok(texts.some((t) => /^Before “build: .+” — empty/.test(t)), texts.join(' | '));
    const beforeBuild = items.filter({ hasText: 'empty' }).first();
    await byTestId(beforeBuild, 'restore-version').click();
    await byTestId(page, 'strategy-empty').waitFor();
    assert.equal((await api.strategy(conv.id)).steps.length, 0);
    // And back to the follow-up's strategy from the history.
    await byTestId(page, 'strategy-history').locator('summary').click();
    await byTestId(page, 'history-item').filter({ hasText: 'Latest' }).locator('button').click();
    await page.waitForFunction((n) => document.querySelector('[data-testid="strategy-root-count"]')?.textContent.trim() === `${n} genes`, followedRoot.count);

    // While a turn is changing the strategy, Undo and the history wait for
    // it (no click goes back under a build half done); stopped, one Undo
    // takes the stopped turn's step away. Desktop only: the scripted
    // model's answers are used once per server.
    if (name === 'desktop') {
      const latest = await api.strategy(conv.id);
      await api.startTurn(conv.id, 'add the tRNA genes', 'execute', 'scripted:e2e_undo_running.json');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="graph-step"]')].some((g) => g.textContent.includes('tRNA genes')));
      await page.locator('#stop-form[data-running="true"]').waitFor();
      assert.ok(await byTestId(page, 'undo-button').isDisabled(), 'Undo waits for the running turn');
      await byTestId(page, 'strategy-history').locator('summary').click();
      const restores = byTestId(page, 'restore-version');
      assert.ok((await restores.count()) > 0);
      for (const r of await restores.all()) assert.ok(await r.isDisabled(), `"${await r.innerText()}" waits for the running turn`);
      const refused = await api.call('POST', `/conversations/${conv.id}/strategy/undo`, undefined, { okStatuses: [409] });
      assert.equal(refused.body.error.code, 'TURN_RUNNING');
      await page.locator('body').press('Escape');
      await api.waitIdle(conv.id);
      await page.waitForFunction(() => {
        const u = document.querySelector('[data-testid="undo-button"]');
        return u && !u.disabled && u.textContent.includes('tRNA');
      });
      await byTestId(page, 'undo-button').click();
      await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid="graph-step"]')].some((g) => g.textContent.includes('tRNA genes')));
      const back = await api.strategy(conv.id);
      assert.deepEqual(back.steps.map((s) => s.id).sort(), latest.steps.map((s) => s.id).sort(), 'the strategy before the stopped turn');
      assert.equal(back.rootStepId, latest.rootStepId);
    }
    assert.deepEqual(problems.pageErrors, []);
  });
}
