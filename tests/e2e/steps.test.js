// A step by hand and by name: the researcher changes a step's parameter
// from its results panel (the step and the result are counted again, Undo
// names the change; a value the catalog refuses shows its message by the
// form), and a step's id links its graph box, the sub-agent node that
// built it and the chat's mentions of it: hovering or focusing one marks
// the box. At 1440×900 and 390×844.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api, screenshot } from './lib/harness.js';
import { waitConnected, horizontalOverflow, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();
const sizes = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

/** built plans and builds the acceptance strategy through the API. */
async function built(api, title) {
  const { id, strategy } = await buildAcceptance(api, title);
  return { id, strategy };
}

const box = (page, id) => page.locator(`[data-testid="graph-step"][data-step-id="${id}"]`);
const lit = (page, id) => box(page, id).evaluate((g) => g.classList.contains('step-lit'));

/** openParams opens a step's results by its graph box and its editor. */
async function openParams(page, id) {
  await box(page, id).click();
  const form = page.locator(`[data-testid="results-table"][data-step-id="${id}"] [data-testid="step-params"]`);
  await form.waitFor();
  await form.locator('summary').click();
  return form;
}

for (const [name, viewport] of Object.entries(sizes)) {
  test(`a step's parameter is changed on the page, and its id links graph, nodes and chat (${name})`, async () => {
    const { alice } = env();
    const api = new Api(alice);
    // No title: the conversation's title follows its result step.
    const conv = await built(api);
    const steps = conv.strategy.steps;
    const location = steps.find((s) => s.searchName === 'GenesByLocation');
    const goStep = steps.find((s) => s.searchName === 'GenesByGoTerm');
    const root = steps.find((s) => s.id === conv.strategy.rootStepId);
    assert.ok(location && goStep && root, 'the acceptance strategy has a location step, a GO step and a result');

    const { page, problems } = await b.openAs(alice, viewport);
    await page.goto(`/conversations/${conv.id}`);
    await waitConnected(page);

    // Every box shows its id.
    for (const s of steps) {
      assert.equal((await box(page, s.id).locator('[data-testid="graph-step-id"]').textContent()).trim(), s.id);
    }

    // The chat's mention of the result step links to its box; focusing it
    // (by keyboard) marks the box, and following it opens its results.
    const mention = page.locator(`[data-testid="chat"] a.step-mention[data-step-id="${root.id}"]`).first();
    await mention.waitFor();
    assert.equal(await mention.getAttribute('title'), root.displayName, 'the mention is titled with the step\'s name');
    await mention.focus();
    assert.ok(await lit(page, root.id), 'focusing the mention marks its graph box');
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="results-table"][data-step-id="${root.id}"]`).waitFor();

    // A sub-agent node says which step it built; hovering it marks the box.
    const node = page.locator('[data-testid="node"][data-step-id]').first();
    await node.waitFor();
    const nodeStep = await node.getAttribute('data-step-id');
    assert.equal((await byTestId(node, 'node-step').textContent()).trim(), `→ ${nodeStep}`);
    await node.hover();
    assert.ok(await lit(page, nodeStep), 'hovering the node marks the box of the step it built');
    await page.mouse.move(0, 0);
    await page.locator('[data-testid="chat"]').first().hover();
    assert.ok(!(await lit(page, nodeStep)), 'leaving the node unmarks the box');

    // Change the location step's chromosome: the step and the result are
    // counted again, the results panel follows, Undo names the step.
    let form = await openParams(page, location.id);
    const chromosome = form.locator('select[name="p.chromosomeOptional"]');
    const current = await chromosome.inputValue();
    const other = (await chromosome.locator('option').evaluateAll((os) => os.map((o) => o.value))).find((v) => v && v !== current);
    await chromosome.selectOption(other);
    await byTestId(form, 'step-params-button').click();
    await page.waitForFunction(
      ([id, before]) => {
        const g = document.querySelector(`[data-testid="graph-step"][data-step-id="${id}"]`);
        return g && g.dataset.count && g.dataset.count !== String(before);
      },
      [location.id, location.count],
    );
    await page.waitForFunction(
      ([id, before]) => document.querySelector(`[data-testid="graph-step"][data-step-id="${id}"]`)?.dataset.count !== String(before),
      [root.id, root.count],
    );
    const after = await api.strategy(conv.id);
    const changed = after.steps.find((s) => s.id === location.id);
    assert.equal(changed.parameters.chromosomeOptional, other);
    assert.notEqual(after.steps.find((s) => s.id === root.id).count, root.count, 'the result was counted again');
    await page.locator(`[data-testid="results-table"][data-step-id="${location.id}"][data-version="${after.version}"]`).waitFor();
    await page.waitForFunction((id) => document.querySelector('[data-testid="undo-button"]')?.textContent.includes(`step ${id}`), location.id);
    assert.equal(await byTestId(page, 'undo-button').getAttribute('title'), `Undo: updated step ${location.id} (parameters: chromosomeOptional)`);

    // A GO id the catalog does not know: its message, by the form.
    form = await openParams(page, goStep.id);
    await form.locator('textarea[name="p.go_typeahead"]').fill('GO:9999999');
    await byTestId(form, 'step-params-button').click();
    const error = byTestId(form, 'step-params-error');
    await page.waitForFunction((el) => el.textContent.includes('GO:9999999'), await error.elementHandle());
    assert.match(await error.textContent(), /^GO Term or GO ID: Invalid value 'GO:9999999'\./);
    assert.equal((await api.strategy(conv.id)).version, after.version, 'the refused value changed nothing');

    // Another GO term: the box names the new term, and the result's name
    // follows; no name carries a step id.
    const repair = steps.find((s) => s.searchName === 'GenesByGoTerm' && s.parameters.go_typeahead.includes('GO:0006281'));
    assert.match(repair.displayName, /DNA repair/);
    form = await openParams(page, repair.id);
    // The field names its term; the typeahead finds the new one by name,
    // with its count, and the keyboard adds it.
    assert.equal((await byTestId(form, 'term-chosen').textContent()).trim(), 'DNA repair (GO:0006281)');
    await form.locator('textarea[name="p.go_typeahead"]').fill('');
    assert.equal(await byTestId(form, 'term-chosen').locator('li').count(), 0, 'the cleared term leaves the list');
    await byTestId(form, 'term-search').pressSequentially('DNA replication');
    const pick = form.locator('[data-testid="term-pick"][data-term="GO:0006260"]');
    await pick.waitFor();
    assert.match(await pick.locator('xpath=..').locator('[data-testid="term-count"]').textContent(), /^\d+ genes$/);
    assert.equal(await form.locator('[data-testid="term-pick"]').first().getAttribute('data-term'), 'GO:0006260', 'the exact name comes first');
    await byTestId(form, 'term-search').press('Enter');
    assert.equal(await form.locator('textarea[name="p.go_typeahead"]').inputValue(), 'GO:0006260');
    assert.equal((await byTestId(form, 'term-chosen').textContent()).trim(), 'DNA replication (GO:0006260)');
    assert.equal(await byTestId(form, 'term-search').evaluate((el) => el === document.activeElement), true, 'focus stays in the search box');
    await byTestId(form, 'step-params-button').click();
    await page.waitForFunction(
      (id) => /DNA replication \(GO:0006260\)/.test(document.querySelector(`[data-testid="graph-step"][data-step-id="${id}"] [data-testid="graph-step-name"]`)?.textContent ?? ''),
      repair.id,
    );
    const renamed = await api.strategy(conv.id);
    for (const s of renamed.steps) {
      assert.doesNotMatch(s.displayName, /DNA repair/, `step ${s.id} is named "${s.displayName}" after DNA repair was replaced`);
      assert.doesNotMatch(s.displayName, /\bs\d+\b/, `step ${s.id}'s name "${s.displayName}" carries a step id`);
    }
    const rootName = await box(page, root.id).locator('[data-testid="graph-step-name"]').textContent();
    assert.doesNotMatch(rootName, /DNA repair/, 'the result box no longer names DNA repair');
    // The conversation's title (heading and tab) follows the result's new name.
    const newRoot = renamed.steps.find((s) => s.id === renamed.rootStepId).displayName;
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid="conversation-title"]')?.textContent === n && document.title.startsWith(n),
      newRoot,
    );
    if (name === 'phone') await screenshot(page, 'phone-step-parameters');
    else await screenshot(page, 'step-parameters');

    // The result is a combine: its operator changes on the page, the box
    // says the new one, and Undo brings the old one back.
    await box(page, root.id).click();
    const opForm = page.locator(`[data-testid="results-table"][data-step-id="${root.id}"] [data-testid="step-operator"]`);
    await opForm.waitFor();
    const was = await byTestId(opForm, 'step-operator-select').inputValue();
    const to = was === 'UNION' ? 'INTERSECT' : 'UNION';
    await byTestId(opForm, 'step-operator-select').selectOption(to);
    await byTestId(opForm, 'step-operator-button').click();
    await page.waitForFunction(
      ([id, op]) => document.querySelector(`[data-testid="graph-step"][data-step-id="${id}"]`)?.getAttribute('data-operator') === op,
      [root.id, to],
    );
    assert.equal((await api.strategy(conv.id)).steps.find((s) => s.id === root.id).operator, to);
    await byTestId(page, 'undo-button').click();
    await page.waitForFunction(
      ([id, op]) => document.querySelector(`[data-testid="graph-step"][data-step-id="${id}"]`)?.getAttribute('data-operator') === op,
      [root.id, was],
    );

    assert.deepEqual(await horizontalOverflow(page), []);
    // The refused change answers 422, which the browser and htmx log.
    const consoleProblems = problems.console.filter((m) => !/\b422\b/.test(m));
    assert.deepEqual({ ...problems, console: consoleProblems }, { console: [], pageErrors: [], dialogs: [] });
  });
}
