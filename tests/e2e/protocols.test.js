// Strategist through other clients' protocols, with their official
// clients: MCP (@modelcontextprotocol/sdk over Streamable HTTP at /mcp) and
// the OpenAI-compatible chat API (the openai package at /v1), against the
// real server with the offline engine and catalog.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
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
