// Strategist as an AG-UI agent, driven by the official client
// (@ag-ui/client's HttpAgent, protocol 1.0) at POST /ag-ui, against the real
// server with the offline engine and catalog: a plan run that ends with an
// interrupt, the run that resumes it and builds, and the strategy as state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpAgent, EventType } from '@ag-ui/client';
import { env, Api } from './lib/harness.js';
import { acceptanceRequest } from './lib/conversation.js';

/** agent is an HttpAgent on threadId that sends token. */
function agent(token, threadId) {
  return new HttpAgent({ url: `${env().baseURL}/ag-ui`, headers: { Authorization: `Bearer ${token}` }, threadId });
}

/** run runs the agent and collects the events the client verified and applied. */
async function run(a, params = {}) {
  const events = [];
  const result = await a.runAgent(params, { onEvent: ({ event }) => { events.push(event); } });
  return { events, result };
}

/** rootCount is the count of a strategy snapshot's root step. */
function rootCount(strategy) {
  return strategy?.steps.find((s) => s.id === strategy.rootStepId)?.count;
}

test('AG-UI: HttpAgent plans, stops at the plan interrupt, and resumes it to build the strategy of 89 genes', async () => {
  const { alice, bob } = env();
  const threadId = crypto.randomUUID();
  const a = agent(alice.token, threadId);
  a.addMessage({ id: crypto.randomUUID(), role: 'user', content: acceptanceRequest });

  const plan = await run(a);
  const types = plan.events.map((e) => e.type);
  assert.deepEqual(types.slice(0, 2), [EventType.RUN_STARTED, EventType.STATE_SNAPSHOT]);
  assert.equal(plan.events[0].threadId, threadId);
  assert.ok(types.includes(EventType.TEXT_MESSAGE_CONTENT), `text arrives: ${types}`);
  assert.ok(types.includes(EventType.TOOL_CALL_START) && types.includes(EventType.TOOL_CALL_RESULT), `tool calls arrive: ${types}`);
  assert.ok(a.messages.some((m) => m.role === 'assistant' && m.content), 'the client holds the assistant\'s text');
  assert.ok(a.messages.some((m) => m.role === 'assistant' && m.toolCalls?.length), 'and its tool calls');
  assert.ok(a.messages.some((m) => m.role === 'tool'), 'and their results');
  const end = plan.events.at(-1);
  assert.equal(end.type, EventType.RUN_FINISHED);
  assert.equal(end.outcome.type, 'interrupt');
  assert.equal(a.pendingInterrupts.length, 1, 'the plan waits as an interrupt');
  const [interrupt] = a.pendingInterrupts;
  assert.equal(interrupt.reason, 'plan_approval');
  assert.match(interrupt.message, /^Plan ready: /);
  assert.equal(a.state.conversationId, threadId, 'the thread is the conversation');
  assert.equal(a.state.strategy, null, 'nothing is built before the approval');

  // Another user's thread is not found.
  const intruder = agent(bob.token, threadId);
  intruder.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'build' });
  await assert.rejects(intruder.runAgent(), (err) => {
    assert.match(String(err.message), /HTTP 404/);
    return true;
  });

  // The client refuses a run that leaves the interrupt unanswered; resuming it builds.
  await assert.rejects(a.runAgent(), /pending interrupt/);
  const build = await run(a, { resume: [{ interruptId: interrupt.id, status: 'resolved' }] });
  const done = build.events.at(-1);
  assert.equal(done.type, EventType.RUN_FINISHED);
  assert.equal(done.outcome.type, 'success');
  assert.equal(done.result.rootCount, 89);
  assert.deepEqual(a.pendingInterrupts, []);
  const steps = build.events.filter((e) => e.type === EventType.STEP_STARTED);
  assert.ok(steps.length >= 3, `a step per sub-agent node: ${steps.map((s) => s.stepName)}`);
  assert.equal(build.events.filter((e) => e.type === EventType.STEP_FINISHED).length, steps.length);
  assert.ok(build.events.some((e) => e.type === EventType.STATE_DELTA), 'the strategy streams as state deltas');
  assert.equal(rootCount(a.state.strategy), 89, 'the deltas lead to the root of 89 genes');

  // A new client on the thread starts from a snapshot with the strategy.
  const later = agent(alice.token, threadId);
  later.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'Why does the root step have 89 genes?' });
  const again = await run(later);
  const snapshot = again.events.find((e) => e.type === EventType.STATE_SNAPSHOT).snapshot;
  assert.equal(rootCount(snapshot.strategy), 89);
  const snap = (await new Api(alice).call('GET', `/conversations/${threadId}/strategy`)).body;
  assert.equal(rootCount(snap), 89, 'the app has the same strategy');
});

test('AG-UI: no token is a 401', async () => {
  const a = new HttpAgent({ url: `${env().baseURL}/ag-ui` });
  a.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'hi' });
  await assert.rejects(a.runAgent(), (err) => {
    assert.match(String(err.message), /HTTP 401/);
    return true;
  });
});
