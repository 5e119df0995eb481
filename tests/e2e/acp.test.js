// Strategist as an Agent Client Protocol agent, driven by the official
// client (@agentclientprotocol/sdk) as an editor drives it: the test starts
// `strategist acp` with an API token, against the real server with the
// offline engine and catalog, and speaks ACP on its standard input and
// output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { env, Api } from './lib/harness.js';
import { acceptanceRequest } from './lib/conversation.js';

/**
 * startAgent runs `strategist acp` as the user of token and connects the ACP
 * client to it. onPermission answers the agent's permission requests;
 * onUpdate sees each session update (with the client's context, to send a
 * cancel). run gets the client's context; the agent stops when it ends.
 */
async function withAgent(token, { args = [], onPermission, onUpdate }, run) {
  const bin = process.env.E2E_STRATEGIST_BIN;
  assert.ok(bin, 'E2E_STRATEGIST_BIN is set by scripts/e2e.sh');
  const child = spawn(bin, ['acp', ...args], {
    env: { ...process.env, STRATEGIST_URL: env().baseURL, STRATEGIST_TOKEN: token },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const updates = [];
  const client = acp.client({ name: 'strategist-e2e' })
    .onNotification(acp.methods.client.session.update, async ({ params, agent }) => {
      updates.push(params.update);
      if (onUpdate) await onUpdate(params.update, agent, params.sessionId);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, agent }) => onPermission(params, agent));
  try {
    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    return await client.connectWith(stream, (ctx) => run(ctx, updates));
  } catch (err) {
    err.message += `\nstrategist acp stderr: ${stderr}`;
    throw err;
  } finally {
    child.stdin.end();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('running'), 5000))]);
    if (code === 'running') child.kill();
    assert.equal(code, 0, `strategist acp exits when its input ends (stderr: ${stderr})`);
  }
}

async function open(ctx) {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'strategist-e2e', version: '1.0.0' },
  });
  assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
  assert.equal(init.agentInfo.name, 'strategist');
  assert.equal(init.agentCapabilities.loadSession, false);
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
  assert.match(session.sessionId, /^[0-9a-f-]{36}$/, 'the session is a conversation');
  assert.equal(session._meta['strategist/conversationUrl'], `${env().baseURL}/conversations/${session.sessionId}`);
  return session.sessionId;
}

const prompt = (sessionId, text) => ({ sessionId, prompt: [{ type: 'text', text }] });
const textOf = (updates, kind) => updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join('');

test('ACP: a prompt plans with tool calls, the handoff asks permission, and the build reaches the root of 89 genes', async () => {
  const { alice } = env();
  const asked = [];
  await withAgent(alice.token, {
    onPermission: (params) => {
      asked.push(params);
      const allow = params.options.find((o) => o.kind === 'allow_once');
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    },
  }, async (ctx, updates) => {
    const sessionId = await open(ctx);
    const res = await ctx.request(acp.methods.agent.session.prompt, prompt(sessionId, acceptanceRequest));
    assert.equal(res.stopReason, 'end_turn');

    // The planner's words as message chunks, its tool calls with their ends.
    const chunks = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk');
    assert.ok(chunks.length > 3, `message chunks: ${chunks.length}`);
    const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
    assert.ok(calls.some((c) => c.title === 'search_for_searches' && c.kind === 'search'), JSON.stringify(calls.map((c) => c.title)));
    for (const c of calls) {
      const end = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === c.toolCallId &&
        ['completed', 'failed'].includes(u.status));
      assert.ok(end, `tool call ${c.title} (${c.toolCallId}) ends`);
    }

    // The handoff: a tool call the permission names, accepted, completed.
    assert.equal(asked.length, 1, 'permission is asked once');
    const handoff = asked[0].toolCall.toolCallId;
    assert.equal(asked[0].sessionId, sessionId);
    assert.deepEqual(asked[0].options.map((o) => o.kind), ['allow_once', 'reject_once']);
    const handoffCall = calls.find((c) => c.toolCallId === handoff);
    assert.equal(handoffCall.kind, 'switch_mode');
    assert.match(handoffCall.title, /^Build the plan: /);
    assert.ok(updates.some((u) => u.toolCallId === handoff && u.status === 'completed'), 'the build completes the handoff');

    // The delegation's tasks as plan entries, all completed at the end.
    const plans = updates.filter((u) => u.sessionUpdate === 'plan');
    assert.ok(plans.length >= 3, `plan updates: ${plans.length}`);
    assert.ok(plans.some((p) => p.entries.some((e) => e.status === 'in_progress')), 'a task shows running');
    const last = plans.at(-1).entries;
    assert.ok(last.length >= 3, JSON.stringify(last));
    assert.ok(last.every((e) => e.status === 'completed'), JSON.stringify(last));
    assert.ok(last.some((e) => /\(step s\d+\)/.test(e.content)), 'a task names its step');
    assert.ok(updates.some((u) => u.sessionUpdate === 'session_info_update' && u.title), 'the planner titles the session');

    const text = textOf(updates, 'agent_message_chunk');
    assert.match(text.trim().split('\n').pop(), /89 genes/, `the answer ends with the root count: ${text.slice(-300)}`);
    const snap = (await new Api(alice).call('GET', `/conversations/${sessionId}/strategy`)).body;
    assert.equal(snap.steps.find((s) => s.id === snap.rootStepId).count, 89, 'the app has the same strategy');
  });
});

test('ACP: a rejected handoff keeps the plan waiting', async () => {
  const { alice } = env();
  await withAgent(alice.token, {
    onPermission: (params) => ({ outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === 'reject_once').optionId } }),
  }, async (ctx, updates) => {
    const sessionId = await open(ctx);
    const res = await ctx.request(acp.methods.agent.session.prompt, prompt(sessionId, 'DNA repair genes on chromosome 14'));
    assert.equal(res.stopReason, 'end_turn');
    const conv = (await new Api(alice).call('GET', `/conversations/${sessionId}`)).body;
    assert.deepEqual(conv.handoffs.map((h) => h.status), ['pending'], 'the plan waits on the page');
    assert.equal(conv.turns.length, 1, 'no build ran');
    assert.ok(updates.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed' && /^handoff-/.test(u.toolCallId)));
  });
});

test('ACP: session/cancel cancels the running build', async () => {
  const { alice } = env();
  let cancelled = false;
  await withAgent(alice.token, {
    // The scripted sub-agents' first calls hang for a minute: the build runs until cancelled.
    // A script of its own: a scripted model's responses are used once per server.
    args: ['--model', 'scripted:e2e_acp_stop.json'],
    onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'build' } }),
    onUpdate: async (u, agent, sessionId) => {
      if (!cancelled && u.sessionUpdate === 'plan' && u.entries.some((e) => e.status === 'in_progress')) {
        cancelled = true;
        await agent.notify(acp.methods.agent.session.cancel, { sessionId });
      }
    },
  }, async (ctx) => {
    const sessionId = await open(ctx);
    const started = Date.now();
    const res = await ctx.request(acp.methods.agent.session.prompt, prompt(sessionId, acceptanceRequest));
    assert.equal(res.stopReason, 'cancelled');
    assert.ok(cancelled, 'the build was running when cancelled');
    assert.ok(Date.now() - started < 30_000, 'the turn stopped without waiting for the sub-agents');
    const conv = (await new Api(alice).call('GET', `/conversations/${sessionId}`)).body;
    assert.deepEqual(conv.turns.map((t) => t.status), ['completed', 'cancelled'], 'the plan completed, the build was cancelled');
  });
});

test('ACP: a wrong token is refused as authentication required', async () => {
  await withAgent('stg_not_a_token', { onPermission: () => ({ outcome: { outcome: 'cancelled' } }) }, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    await assert.rejects(ctx.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] }), (err) => {
      assert.equal(err.code, -32000, String(err));
      assert.match(err.message, /API token/);
      return true;
    });
  });
});
