// Controls follow every change on the page: with the results panel open on
// the root, setting the conversation's controls, changing a step's
// parameters and undoing the change each redraw the step's figures
// without a reload. The build's requirement check is a card in its turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, useBrowser, byTestId, Api } from './lib/harness.js';
import { waitConnected, buildAcceptance } from './lib/conversation.js';

const b = useBrowser();

test('the results panel redraws its control figures on controls_changed, an edit and an undo', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const conv = await buildAcceptance(api, 'Controls follow the strategy');
  const root = conv.root.id;
  // Two DNA replication genes the root keeps and one on chromosome 14
  // (DNA repair) that the exclusion removes; a negative on chromosome 14.
  const { body: positives } = await api.call('POST', '/gene-lists', { name: 'known replication genes', text: 'PF3D7_0108600\nPF3D7_0215800\nPF3D7_1405300' });
  const { body: negatives } = await api.call('POST', '/gene-lists', { name: 'chromosome 14 gene', text: 'PF3D7_1400100' });

  const { page, problems } = await b.openAs(alice);
  await page.goto(`/conversations/${conv.id}`);
  await waitConnected(page);
  // The build's requirement check is a card of the build turn.
  const card = byTestId(page, 'requirements');
  assert.match(await byTestId(card, 'requirements-summary').innerText(), /^5 of 5 met · result 89 genes/);
  assert.equal(await byTestId(card, 'requirement').count(), 5);

  await page.locator(`[data-testid="graph-step"][data-step-id="${root}"]`).click();
  await byTestId(page, 'lists-panel').waitFor();
  assert.equal(await byTestId(page, 'step-controls').count(), 0, 'no figures before controls are set');
  const figures = () => byTestId(page, 'step-controls').innerText();
  const waitFigures = (re) => page.waitForFunction(
    (src) => new RegExp(src).test(document.querySelector('[data-testid="step-controls"]')?.textContent || ''), re.source);

  // Controls set elsewhere (the API): controls_changed redraws the panel.
  await api.call('PUT', `/conversations/${conv.id}/controls`, { positives: positives.id, negatives: negatives.id });
  await waitFigures(/positives 2 of 3 found/);
  assert.match(await figures(), /negatives 0 of 1 found · precision 100\.0%/);
  assert.match(await byTestId(page, 'step-controls-missed').innerText(), /PF3D7_1405300/, 'the positive the exclusion loses');

  // A change of the strategy: the exclusion now takes chromosome 13, so
  // the chromosome-14 positive comes back.
  const strategy = await api.strategy(conv.id);
  const location = strategy.steps.find((s) => s.searchName === 'GenesByLocation');
  await api.call('PATCH', `/conversations/${conv.id}/strategy/steps/${location.id}`, { parameters: { chromosomeOptional: 'Pf3D7_13_v3' } });
  await waitFigures(/positives 3 of 3 found/);
  assert.equal(await byTestId(page, 'step-controls-missed').count(), 0, 'no positive lost');

  // Undo: the figures of the strategy as it was.
  await api.call('POST', `/conversations/${conv.id}/strategy/undo`);
  await waitFigures(/positives 2 of 3 found/);
  assert.deepEqual(problems.pageErrors, []);
});
