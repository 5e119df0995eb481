// Editing a strategy by hand: a strategy with two results says why it cannot
// be exported and offers to combine them; the researcher combines them with
// MINUS (back to the acceptance count) and renames a step from its results.
// At 1440×900 and 390×844.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api } from './lib/harness.js';
import { graphState, horizontalOverflow, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

/** twoResults builds the acceptance strategy, then deletes its result step
 * through the API: its two inputs become the strategy's results. */
async function twoResults(api, title) {
  const conv = await buildAcceptance(api, title);
  const { root } = conv;
  const { body } = await api.call('DELETE', `/conversations/${conv.id}/strategy/steps/${root.id}`);
  assert.deepEqual([...body.roots].sort(), [...root.inputs].sort(), 'the deleted result gives back its two inputs');
  // roots in the order the result combined them (left, then right).
  return { id: conv.id, roots: root.inputs, operator: root.operator };
}

for (const [name, viewport] of Object.entries(sizes)) {
  test(`two results: the page says why Export waits, combines them and renames a step (${name})`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    const conv = await twoResults(api, `Two results (${name})`);
    const { page, problems } = await b.openAs(alice, viewport);
    await page.goto(`/conversations/${conv.id}`);

    // Export is not offered as a download the server would refuse.
    const exportButton = byTestId(page, 'export-wdk');
    assert.equal(await exportButton.evaluate((el) => el.tagName), 'BUTTON');
    assert.ok(await exportButton.isDisabled());
    // Results are named as the page shows them, never by step id: in the
    // reason and in the combine form's choices.
    const before = await api.strategy(conv.id);
    const named = (id) => before.steps.find((s) => s.id === id).displayName;
    const why = await byTestId(page, 'export-wdk-why').innerText();
    assert.match(why, /has 2: /);
    for (const id of conv.roots) assert.ok(why.includes(`“${named(id)} — `), `the reason names ${named(id)}: ${why}`);
    const choices = await page.$$eval('[data-testid="combine-roots"] select:not([name="operator"]) option', (os) => os.map((o) => o.textContent.trim()));
    assert.equal(choices.length, 4);
    for (const c of choices) assert.doesNotMatch(c, /\bs\d+\b/, `a result is offered as "${c}"`);

    // Combine by keyboard: the controls are reachable and show focus.
    const form = byTestId(page, 'combine-roots');
    await byTestId(form, 'combine-left').selectOption(conv.roots[0]);
    await byTestId(form, 'combine-right').selectOption(conv.roots[1]);
    await byTestId(form, 'combine-operator').selectOption(conv.operator);
    const combine = byTestId(form, 'combine-button');
    await combine.focus();
    const outline = await combine.evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused Combine button shows its focus');
    await page.keyboard.press('Enter');

    // One result again, drawn live, with the acceptance count; Export is a
    // download again.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="strategy-graph"] [data-testid="graph-step"][data-root="true"]').length === 1);
    await byTestId(page, 'export-wdk').and(page.locator('a')).waitFor();
    const strategy = await api.strategy(conv.id);
    const root = strategy.steps.find((s) => s.id === strategy.rootStepId);
    assert.deepEqual(root.inputs, conv.roots);
    assert.equal(root.count, 89, 'the researcher rebuilt the acceptance result');
    const roots = (await graphState(page)).filter((s) => s.root);
    assert.equal(roots.length, 1);
    // The researcher's combine is named from its inputs' names, as the
    // build's was, not by their ids.
    for (const id of conv.roots) assert.ok(root.displayName.includes(named(id)), `the result "${root.displayName}" names its input "${named(id)}"`);
    assert.doesNotMatch(root.displayName, /\bs\d+\b/);
    assert.ok(roots[0].text.includes(root.displayName), `the result box reads "${roots[0].text}"`);

    // Open a step's results by keyboard, then rename it there.
    await page.locator(`[data-testid="graph-step"][data-step-id="${conv.roots[0]}"]`).focus();
    await page.keyboard.press('Enter');
    const rename = byTestId(page, 'rename-step');
    await rename.waitFor();
    await rename.locator('input[name="name"]').fill('Replication or repair');
    await byTestId(rename, 'rename-button').click();
    await page.waitForFunction(
      (id) => document.querySelector(`[data-testid="graph-step"][data-step-id="${id}"]`)?.textContent.includes('Replication or repair'),
      conv.roots[0],
    );
    const renamed = (await api.strategy(conv.id)).steps.find((s) => s.id === conv.roots[0]);
    assert.equal(renamed.displayName, 'Replication or repair');

    assert.deepEqual(await horizontalOverflow(page), []);
    assert.deepEqual(problems, { console: [], pageErrors: [], dialogs: [] });
  });
}
