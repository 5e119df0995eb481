// Strategist through other clients' protocols, with their official
// clients: MCP (@modelcontextprotocol/sdk over Streamable HTTP at /mcp),
// the OpenAI-compatible chat API (the openai package at /v1) and A2A
// (@a2a-js/sdk over JSON-RPC at /a2a), against the real server with the
// offline engine and catalog.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { env, Api } from './lib/harness.js';
import { acceptanceRequest } from './lib/conversation.js';

const conversationLink = /\/conversations\/([0-9a-f-]{36})/;

async function mcpClient(token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', env().baseURL), { requestInit: { headers } });
  const client = new Client({ name: 'strategist-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** call runs an MCP tool and returns its structured result; a tool error fails. */
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name} failed: ${JSON.stringify(res.content)}`);
  assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent, `${name}: the text is the structured result`);
  return res;
}

test('MCP: list the tools, search the catalog, build a two-step strategy, count it and read it back', async () => {
  const { alice, bob } = env();
  const client = await mcpClient(alice.token);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const want of ['list_sites', 'search_for_searches', 'get_search_parameters', 'lookup_genes', 'create_conversation',
      'get_strategy', 'create_step', 'combine_steps', 'get_result_count', 'undo_last_change']) {
      assert.ok(names.includes(want), `${want} is offered (${names})`);
    }
    // The agents' schemas, with the conversation added where a strategy is meant.
    const create = tools.find((t) => t.name === 'create_step');
    assert.ok(create.inputSchema.required.includes('conversationId') && create.inputSchema.required.includes('search_name'));
    assert.equal(tools.find((t) => t.name === 'search_for_searches').annotations.readOnlyHint, true);

    const found = await call(client, 'search_for_searches', { query: 'GO term' });
    assert.ok(found.structuredContent.searches.some((s) => s.name === 'GenesByGoTerm'), 'GenesByGoTerm is found');
    assert.equal(found._meta['strategist/provenance'].offline, true, 'the answer says it comes from the offline snapshot');
    const params = await call(client, 'get_search_parameters', { search_name: 'GenesByLocation', record_type: 'transcript', site: 'plasmodb' });
    assert.ok(JSON.stringify(params.structuredContent).includes('chromosomeOptional'));

    const conv = (await call(client, 'create_conversation', { title: 'DNA repair off chromosome 14' })).structuredContent;
    assert.match(conv.url, conversationLink);
    const id = conv.conversationId;
    const repair = (await call(client, 'create_step', {
      conversationId: id, search_name: 'GenesByGoTerm', display_name: 'DNA repair',
      parameters: { go_typeahead: '["GO:0006281"]', organism: '["Plasmodium falciparum 3D7"]' },
    })).structuredContent;
    assert.equal(repair.step.count.value, 60, JSON.stringify(repair.step));
    const chr14 = (await call(client, 'create_step', {
      conversationId: id, search_name: 'GenesByLocation', display_name: 'chromosome 14',
      parameters: { chromosomeOptional: 'Pf3D7_14_v3' },
    })).structuredContent;
    assert.equal(chr14.step.count.value, 802);
    const root = (await call(client, 'combine_steps', {
      conversationId: id, left_step_id: repair.step.stepId, right_step_id: chr14.step.stepId, operator: 'MINUS',
    })).structuredContent;
    const n = root.step.count.value;
    assert.ok(n > 0 && n < 60, `DNA repair genes off chromosome 14: ${n}`);
    const counted = (await call(client, 'get_result_count', { conversationId: id, step_id: root.step.stepId })).structuredContent;
    assert.equal(JSON.stringify(counted).includes(String(n)), true, JSON.stringify(counted));

    const overview = (await call(client, 'get_strategy', { conversationId: id })).structuredContent;
    assert.equal(overview.rootStepId, root.step.stepId);
    assert.equal(overview.steps.length, 3);
    assert.equal(overview.steps.find((s) => s.stepId === overview.rootStepId).count.value, n);

    // The app sees the same strategy, and its log has the snapshots.
    const api = new Api(alice);
    const snap = (await api.call('GET', `/conversations/${id}/strategy`)).body;
    assert.equal(snap.rootStepId, root.step.stepId);
    assert.equal(snap.steps.find((s) => s.id === snap.rootStepId).count, n);

    // Another user's conversation is not found, and a bad argument is an error result.
    const other = await mcpClient(bob.token);
    try {
      const res = await other.callTool({ name: 'get_strategy', arguments: { conversationId: id } });
      assert.equal(res.isError, true);
      assert.equal(JSON.parse(res.content[0].text).code, 'NOT_FOUND');
    } finally {
      await other.close();
    }
    const bad = await client.callTool({ name: 'create_step', arguments: { conversationId: id, search_name: 'NoSuchSearch', parameters: {} } });
    assert.equal(bad.isError, true);
  } finally {
    await client.close();
  }
});

test('MCP: ask_strategist plans and builds as turns, with progress notifications, to the root count', async () => {
  const client = await mcpClient(env().alice.token);
  try {
    const progress = [];
    const res = await client.callTool(
      { name: 'ask_strategist', arguments: { message: acceptanceRequest, build: true } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p.message), resetTimeoutOnProgress: true },
    );
    assert.ok(!res.isError, JSON.stringify(res.content));
    const out = res.structuredContent;
    assert.equal(out.status, 'completed');
    assert.equal(out.rootCount, 89);
    assert.equal(out.planWaiting, false);
    assert.match(out.url, conversationLink);
    assert.ok(progress.some((m) => /Sub-agents: 3 tasks/.test(m)), `progress: ${JSON.stringify(progress)}`);
    assert.ok(progress.some((m) => /: done \(step s\d+\)/.test(m)));
  } finally {
    await client.close();
  }
});

test('MCP: a client without a token is refused with 401', async () => {
  for (const token of ['', 'stg_not_a_token']) {
    await assert.rejects(mcpClient(token), (err) => {
      assert.equal(err.code, 401, String(err));
      assert.match(String(err), /API token/);
      return true;
    });
  }
});

test('OpenAI: models, a streamed answer that builds and ends with the root count, 401 without a token', async () => {
  const { alice, baseURL } = env();
  const openai = new OpenAI({ apiKey: alice.token, baseURL: `${baseURL}/v1`, maxRetries: 5 });

  const models = [];
  for await (const m of openai.models.list()) models.push(m.id);
  assert.deepEqual(models.sort(), ['strategist', 'strategist-auto']);

  const stream = await openai.chat.completions.create({
    model: 'strategist-auto',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: acceptanceRequest }],
  });
  let text = '';
  let chunks = 0;
  let finish = null;
  let usage = null;
  for await (const chunk of stream) {
    chunks++;
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices) {
      text += c.delta?.content ?? '';
      finish = c.finish_reason ?? finish;
    }
  }
  assert.ok(chunks > 5, `streamed in chunks (${chunks})`);
  assert.equal(finish, 'stop');
  assert.ok(usage && usage.total_tokens >= 0, 'usage is sent when asked for');
  assert.match(text, /Sub-agents: 3 tasks/, 'sub-agent progress is in the stream');
  assert.match(text, /: done \(step s\d+\)/);
  const last = text.trim().split('\n').pop();
  assert.match(last, /89 genes/, `the answer ends with the root count: ${last}`);
  const id = last.match(conversationLink)[1];
  const snap = (await new Api(alice).call('GET', `/conversations/${id}/strategy`)).body;
  assert.equal(snap.steps.find((s) => s.id === snap.rootStepId).count, 89);

  await assert.rejects(new OpenAI({ apiKey: 'stg_wrong', baseURL: `${baseURL}/v1`, maxRetries: 0 }).models.list(), (err) => {
    assert.equal(err.status, 401);
    assert.equal(err.code, 'invalid_api_key');
    assert.equal(err.type, 'authentication_error');
    return true;
  });
  await assert.rejects(openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }), (err) => {
    assert.equal(err.status, 404);
    assert.equal(err.code, 'model_not_found');
    return true;
  });
});

test('OpenAI: without streaming, the model "strategist" plans, then builds when the user says build', async () => {
  const { alice, bob, baseURL } = env();
  const openai = new OpenAI({ apiKey: alice.token, baseURL: `${baseURL}/v1`, maxRetries: 5 });
  const messages = [{ role: 'user', content: 'DNA repair genes on chromosome 14' }];
  const planned = await openai.chat.completions.create({ model: 'strategist', messages });
  assert.equal(planned.object, 'chat.completion');
  const plan = planned.choices[0].message.content;
  assert.match(plan, /Reply \*\*build\*\* to build it/);
  assert.match(plan, /No strategy has been built yet/);
  const id = plan.match(conversationLink)[1];

  // The client sends the history back; the answer's link names the conversation.
  messages.push({ role: 'assistant', content: plan }, { role: 'user', content: 'build' });
  const built = await openai.chat.completions.create({ model: 'strategist', messages });
  const answer = built.choices[0].message.content;
  assert.equal(built.choices[0].finish_reason, 'stop');
  assert.match(answer, /Building the plan/);
  assert.equal(answer.match(conversationLink)[1], id, 'the same conversation');
  const snap = (await new Api(alice).call('GET', `/conversations/${id}/strategy`)).body;
  const root = snap.steps.find((s) => s.id === snap.rootStepId);
  assert.match(answer, new RegExp(`${root.count} genes`));

  // Another user naming the conversation gets a 404.
  const intruder = new OpenAI({ apiKey: bob.token, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  await assert.rejects(
    intruder.chat.completions.create({ model: 'strategist', messages: [{ role: 'user', content: 'build' }] },
      { headers: { 'X-Strategist-Conversation': id } }),
    (err) => err.status === 404 && err.type === 'not_found_error',
  );
});

/** a2aClient reads the agent card and connects @a2a-js/sdk's client, sending token. */
async function a2aClient(token) {
  const fetchImpl = (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(url, { ...init, headers });
  };
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] });
  return factory.createFromUrl(env().baseURL);
}

/** userMessage is a text message, in a context when one is given. */
function userMessage(text, contextId = '', taskId = '') {
  return {
    messageId: crypto.randomUUID(), contextId, taskId, role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }], metadata: undefined, extensions: [], referenceTaskIds: [],
  };
}

/** stream sends a streaming message and collects its events as [case, value] pairs. */
async function stream(client, message) {
  const events = [];
  for await (const ev of client.sendMessageStream({ tenant: '', message, configuration: undefined, metadata: undefined })) {
    events.push([ev.payload.$case, ev.payload.value]);
  }
  return events;
}

const textOf = (parts) => parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('\n');
const dataOf = (parts) => parts.find((p) => p.content?.$case === 'data')?.content.value;

test('A2A: the agent card, a streamed plan that waits for "build", and the build\'s task with the strategy', async () => {
  const { alice, bob, baseURL } = env();
  const card = await (await fetch(`${baseURL}/.well-known/agent-card.json`)).json();
  assert.equal(card.name, 'Strategist');
  assert.equal(card.capabilities.streaming, true);
  assert.equal(card.supportedInterfaces[0].url, `${baseURL}/a2a`);
  assert.equal(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme, 'Bearer');
  assert.deepEqual(card.skills.map((s) => s.id), ['plan-strategy', 'build-strategy', 'explain-count']);
  const refused = await fetch(`${baseURL}/a2a`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }) });
  assert.equal(refused.status, 401, 'no token, no JSON-RPC');

  const client = await a2aClient(alice.token);
  const plan = await stream(client, userMessage(acceptanceRequest));
  assert.equal(plan[0][0], 'task', `the stream starts with the task: ${JSON.stringify(plan[0])}`);
  const planTask = plan[0][1];
  assert.equal(planTask.status.state, TaskState.TASK_STATE_WORKING);
  const [lastCase, last] = plan.at(-1);
  assert.equal(lastCase, 'statusUpdate');
  assert.equal(last.status.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'the plan waits for approval');
  assert.match(textOf(last.status.message.parts), /build/);
  assert.ok(plan.some(([c, v]) => c === 'artifactUpdate' && v.artifact.artifactId === 'plan'), 'the plan is an artifact');

  const build = await stream(client, userMessage('build', planTask.contextId, planTask.id));
  const buildTask = build[0][1];
  assert.notEqual(buildTask.id, planTask.id, 'the build is a task of its own');
  assert.equal(buildTask.contextId, planTask.contextId, 'in the same context');
  const end = build.at(-1)[1];
  assert.equal(end.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.match(textOf(end.status.message.parts), /89 genes/);
  assert.ok(build.some(([c, v]) => c === 'statusUpdate' && /: done \(step s\d+\)/.test(textOf(v.status?.message?.parts ?? []))),
    'sub-agent progress is in the stream');
  const strategy = build.find(([c, v]) => c === 'artifactUpdate' && v.artifact.artifactId === 'strategy')[1].artifact;
  assert.equal(dataOf(strategy.parts).rootCount, 89);
  assert.equal(dataOf(strategy.parts).countProvenance.offline, true);
  const wdk = build.find(([c, v]) => c === 'artifactUpdate' && v.artifact.artifactId === 'wdk-strategy')[1].artifact;
  assert.ok(dataOf(wdk.parts).stepTree, 'the WDK export is an artifact');

  const got = await client.getTask({ tenant: '', id: buildTask.id, historyLength: undefined });
  assert.equal(got.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(dataOf(got.artifacts.find((a) => a.artifactId === 'strategy').parts).rootCount, 89);
  const snap = (await new Api(alice).call('GET', `/conversations/${planTask.contextId}/strategy`)).body;
  assert.equal(snap.steps.find((s) => s.id === snap.rootStepId).count, 89, 'the app has the same strategy');

  const intruder = await a2aClient(bob.token);
  await assert.rejects(intruder.getTask({ tenant: '', id: buildTask.id, historyLength: undefined }), TaskNotFoundError,
    'another user\'s task is not found');
});

test('A2A: a subscription follows a running build and CancelTask cancels it', async () => {
  const { alice } = env();
  const api = new Api(alice);
  const conv = (await api.call('POST', '/conversations', { siteId: 'plasmodb' })).body;
  // The scripted sub-agents take a minute per call: the build runs until cancelled.
  const { turnId } = (await api.call('POST', `/conversations/${conv.id}/turns`,
    { mode: 'execute', message: 'Build it', model: 'scripted:cancel_delegation.json' })).body;
  const client = await a2aClient(alice.token);
  const events = [];
  let cancelled;
  for await (const ev of client.resubscribeTask({ tenant: '', id: turnId })) {
    events.push(ev.payload);
    if (events.length === 1) {
      assert.equal(ev.payload.$case, 'task');
      assert.equal(ev.payload.value.status.state, TaskState.TASK_STATE_WORKING);
      assert.equal(ev.payload.value.contextId, conv.id, 'the context is the conversation');
      cancelled = client.cancelTask({ tenant: '', id: turnId, metadata: undefined });
    }
  }
  assert.equal((await cancelled).status.state, TaskState.TASK_STATE_CANCELED);
  assert.equal(events.at(-1).value.status.state, TaskState.TASK_STATE_CANCELED, 'the subscription ends canceled');
  await assert.rejects(client.cancelTask({ tenant: '', id: turnId, metadata: undefined }), TaskNotCancelableError,
    'an ended task cannot be cancelled');
});
