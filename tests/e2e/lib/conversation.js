// What a researcher does on the conversation list and the conversation page,
// through the data-testid hooks of the UI contract, and what the page shows,
// read back as plain data for comparisons.
import assert from 'node:assert/strict';
import { byTestId } from './harness.js';

/** The acceptance request of the offline engine. */
export const acceptanceRequest =
  'Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14';

/**
 * buildAcceptance plans the acceptance request offline through the API,
 * accepts the plan and waits for the build. It returns the conversation id,
 * the built strategy and its root step (the acceptance count, 89).
 */
export async function buildAcceptance(api, title) {
  const conv = await api.createConversation(title);
  await api.startTurn(conv.id, acceptanceRequest, 'plan', 'offline');
  const planned = await api.waitIdle(conv.id);
  const handoff = planned.handoffs.find((h) => h.status === 'pending');
  assert.ok(handoff, 'the offline planner requested a build');
  await api.call('POST', `/conversations/${conv.id}/handoffs/${handoff.id}/accept`);
  await api.waitIdle(conv.id);
  const strategy = await api.strategy(conv.id);
  const root = strategy.steps.find((s) => s.id === strategy.rootStepId);
  assert.equal(root.count, 89, 'the acceptance root');
  return { id: conv.id, strategy, root };
}

/**
 * newConversation starts a conversation from the list page's form and waits
 * for its page. It returns the conversation id.
 */
export async function newConversation(page, siteId = 'plasmodb') {
  if (new URL(page.url()).pathname !== '/') await page.goto('/');
  const form = byTestId(page, 'new-conversation-form');
  await byTestId(form, 'site-select').selectOption(siteId);
  await Promise.all([
    page.waitForURL((u) => /^\/conversations\/[^/]+$/.test(u.pathname)),
    byTestId(form, 'new-conversation').click(),
  ]);
  await waitConnected(page);
  return new URL(page.url()).pathname.split('/').pop();
}

/** conversationId is the id in the page's address. */
export function conversationId(page) {
  return new URL(page.url()).pathname.split('/')[2];
}

/** waitConnected waits for the live stream to be open. */
export async function waitConnected(page, timeout = 15_000) {
  await page.locator('[data-testid="connection-status"][data-state="open"]').waitFor({ timeout });
}

/**
 * send types a message in the composer, picks the mode and the model, and
 * sends it with Enter (or the button). It waits for the user's message to be
 * on screen.
 */
export async function send(page, message, { mode = 'plan', model, useButton = false } = {}) {
  const composer = byTestId(page, 'composer');
  await byTestId(composer, `mode-${mode}`).check();
  if (model) await byTestId(composer, 'model-select').selectOption(model);
  const input = byTestId(composer, 'message-input');
  // Turns, not user messages, are counted: a new turn may fold an older one
  // (whose message then leaves the page).
  const before = await page.locator('[data-testid="chat"] [data-turn-id]').count();
  await input.fill(message);
  if (useButton) await byTestId(composer, 'send-button').click();
  else await input.press('Enter');
  await page.waitForFunction((n) => {
    const turns = document.querySelectorAll('[data-testid="chat"] [data-turn-id]');
    return turns.length > n && turns[turns.length - 1].querySelector('[data-testid="message"][data-role="user"]');
  }, before);
}

/** userMessages locates the user's messages in the chat. */
export function userMessages(page) {
  return page.locator('[data-testid="chat"] [data-testid="message"][data-role="user"]');
}

/**
 * waitIdle waits until the API reports no running turn and the page's
 * composer is usable again (stop hidden, send enabled).
 */
export async function waitIdle(page, api, id, timeoutMs = 60_000) {
  const conv = await api.waitIdle(id, timeoutMs);
  await page.waitForFunction(
    () => {
      const q = (t) => document.querySelector(`[data-testid="${t}"]`);
      const input = q('message-input');
      const sendButton = q('send-button');
      const stop = q('stop-button');
      const stopVisible = stop && !stop.disabled && stop.offsetParent !== null && !stop.hidden;
      return input && !input.disabled && sendButton && !sendButton.disabled && !stopVisible;
    },
    null,
    { timeout: timeoutMs },
  );
  return conv;
}

/**
 * openFoldedTurns opens every folded turn of the chat (the summary lines of
 * older turns) and waits until each has loaded, so that what follows reads
 * the whole conversation.
 */
export async function openFoldedTurns(page) {
  const closed = page.locator('[data-testid="chat"] [data-testid="turn-summary"][aria-expanded="false"]');
  for (let n = await closed.count(); n > 0; n = await closed.count()) await closed.first().click();
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[data-testid="folded-turn"] .turn-body')].every(
      (b) => b.hasAttribute('data-loaded') && !b.hasAttribute('aria-busy') && b.querySelector('.turn-end'),
    ),
  );
}

/** turnsState lists the chat's turns as [{id, folded}] in screen order. */
export async function turnsState(page) {
  return page.$$eval('[data-testid="chat"] [data-turn-id]', (els) =>
    els.map((el) => ({ id: el.dataset.turnId, folded: el.dataset.testid === 'folded-turn' })),
  );
}

/** chatState reads the chat as [{role, text}] in screen order. */
export async function chatState(page) {
  return page.$$eval('[data-testid="chat"] [data-testid="message"]', (els) =>
    els.map((el) => {
      const body = el.querySelector('[data-testid="message-text"]');
      return { role: el.dataset.role, text: (body ? body.innerText : '').trim() };
    }),
  );
}

/** toolCards reads the chat's tool-call cards. */
export async function toolCards(page) {
  return page.$$eval('[data-testid="chat"] [data-testid="tool-call"]', (els) =>
    els.map((el) => ({ name: el.dataset.toolName, status: el.dataset.status })),
  );
}

/** nodesState reads the sub-agent panel as [{id, status, attempt, toolCalls}]. */
export async function nodesState(page) {
  return page.$$eval('[data-testid="subagents"] [data-testid="node"]', (els) =>
    els.map((el) => ({
      id: el.dataset.nodeId,
      status: el.dataset.status,
      attempt: (el.querySelector('[data-testid="node-attempt"]')?.innerText || '').trim(),
      toolCalls: el.querySelectorAll('[data-testid="node-tool-call"]').length,
    })),
  );
}

/** waitNodes waits until every node of the panel satisfies pred(status) (and there are n). */
export async function waitNodes(page, n, statuses, timeout = 60_000) {
  await page.waitForFunction(
    ({ n, statuses }) => {
      const els = document.querySelectorAll('[data-testid="subagents"] [data-testid="node"]');
      return els.length === n && [...els].every((el) => statuses.includes(el.dataset.status));
    },
    { n, statuses },
    { timeout },
  );
}

/** graphState reads the strategy graph's steps. */
export async function graphState(page) {
  return page.$$eval('[data-testid="strategy-graph"] [data-testid="graph-step"]', (els) =>
    els.map((el) => ({
      id: el.dataset.stepId,
      kind: el.dataset.kind,
      count: el.dataset.count === '' || el.dataset.count === undefined ? null : Number(el.dataset.count),
      root: el.dataset.root === 'true',
      text: el.textContent.replace(/\s+/g, ' ').trim(),
    })),
  );
}

/** buildPlan clicks "Build this plan" of the pending handoff. */
export async function buildPlan(page) {
  const button = byTestId(page, 'build-plan-button');
  await button.waitFor();
  assert.match(await button.innerText(), /build this plan/i);
  await button.click();
}

/** horizontalOverflow lists elements that stick out of the viewport sideways. */
export async function horizontalOverflow(page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const out = [];
    const doc = document.scrollingElement || document.documentElement;
    if (doc.scrollWidth > vw + 1) out.push(`document scrollWidth ${doc.scrollWidth} > ${vw}`);
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      // Content inside a scrolling box (a wide table, a code block) is fine.
      let clipped = false;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const s = getComputedStyle(p);
        if (['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX)) {
          clipped = true;
          break;
        }
      }
      // Wholly off to the left is the visually hidden pattern (a skip link).
      if (!clipped && (r.right > vw + 1 || (r.left < -1 && r.right > 0))) {
        const id = el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : '';
        out.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${id} spans ${Math.round(r.left)}..${Math.round(r.right)}`);
      }
    }
    return out.slice(0, 20);
  });
}

/**
 * tabOrder presses Tab up to max times from the top of the page and returns
 * what got focus: testid (or tag and text), and whether a focus indicator is
 * drawn (the control looks different focused than blurred).
 */
export async function tabOrder(page, max = 80) {
  await page.evaluate(() => {
    document.activeElement?.blur();
    window.scrollTo(0, 0);
  });
  await page.locator('body').focus().catch(() => {});
  const seen = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      // A focus indicator is anything that looks different focused than not:
      // an outline, a shadow, a colour, or the stroke of an SVG shape.
      const look = () => {
        const s = getComputedStyle(el);
        const shape = el instanceof SVGElement ? el.querySelector('rect, circle, ellipse, path, polygon') : null;
        const ss = shape ? getComputedStyle(shape) : null;
        return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.backgroundColor, s.borderColor,
          s.textDecorationLine, ss?.stroke, ss?.strokeWidth].join('|');
      };
      const focused = look();
      el.blur();
      const plain = look();
      el.focus({ focusVisible: true });
      const r = el.getBoundingClientRect();
      return {
        testid: el.dataset?.testid || el.closest('[data-testid]')?.dataset.testid || '',
        tag: el.tagName.toLowerCase(),
        name: el.getAttribute('name') || el.id || '',
        text: (el.innerText || el.value || el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40),
        indicator: focused !== plain,
        visible: r.width > 0 && r.height > 0,
      };
    });
    if (!f) continue;
    if (seen.length && JSON.stringify(seen[0]) === JSON.stringify(f)) break; // wrapped around
    seen.push(f);
  }
  return seen;
}
