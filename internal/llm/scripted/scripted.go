// Package scripted is a deterministic llm.Engine driven by a JSON script. It
// is what Strategist's tests, golden SSE transcripts and benchmarks run
// against: every answer is written down, so a scenario (a planner that
// searches the catalog then answers, an executor that delegates, sub-agents
// that build their steps in parallel, a model that fails or hangs) replays
// identically without a network.
//
// # Format
//
// A script is a JSON object:
//
//	{
//	  "latencyMs": 0,
//	  "roles": {
//	    "planner": [
//	      {"toolCalls": [{"name": "search_for_searches", "args": {"query": "kinase"}}]},
//	      {"text": "GenesByText finds kinases.", "usage": {"promptTokens": 900, "completionTokens": 40}}
//	    ],
//	    "subagent": [
//	      {"match": "kinase", "toolCalls": [{"name": "create_step", "args": {"search_name": "GenesByText"}}]},
//	      {"match": "kinase", "toolCalls": [{"name": "finish_subtask", "args": {"root_step_id": "s1", "summary": "done"}}]},
//	      {"matchRegexp": "(?i)chromosome", "error": "model overloaded", "errorKind": "retryable"},
//	      {"matchRegexp": "(?i)chromosome", "latencyMs": 60000, "text": "too late"}
//	    ]
//	  }
//	}
//
// Roles are the values of llm.Request.Agent ("planner", "executor",
// "subagent", and "summarizer" for history compaction). Each call takes the
// first response of its role that has not been used yet and whose match
// accepts the request's last user message (the task the agent was given):
// "match" is a substring test, "matchRegexp" a Go regular expression, and a
// response with neither accepts any task. A response is used once. Because
// the choice depends on the task text and not on timing, sub-agents running
// in parallel each get their own responses in their own order, and a list of
// responses for one task is consumed in order (fail, then time out, then
// succeed: a retry story).
//
// A response has text (streamed as several deltas), tool calls (after the
// text; args is any JSON, usually an object; id defaults to
// "<role>-<response index>-<call index>"), or an error ("error" with an
// optional "errorKind": unknown, retryable, auth, bad_request, blocked,
// script; text before an error is streamed first, so mid-stream failures can
// be scripted). "latencyMs" delays the first chunk and honours cancellation;
// the top-level "latencyMs" applies to responses that set none; the
// top-level "deltaIntervalMs" spaces text deltas that far apart. "usage" is
// reported as written; without it the engine reports a deterministic
// estimate (a quarter of the bytes of the prompt and of the answer). Unknown
// fields are errors.
//
// A string argument of the form "$result.<path>" is replaced by the value at
// that dotted path (object keys, array indices) in the newest tool result of
// the request's history, e.g. "$result.step.stepId" after a create_step: ids
// the server assigns need not be known when the script is written.
//
// A call that finds no response left is an *llm.Error of kind ErrorScript
// naming the role and task: a test fails with a message, never a hang.
// testdata/example.json is a complete example.
package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"strategist/internal/llm"
)

// Engine plays a Script. It is safe for concurrent use: several agents (the
// sub-agents of one delegation) may share it.
type Engine struct {
	name    string // the file name, for error messages
	latency time.Duration
	pace    time.Duration // between text deltas
	roles   map[string][]entry

	mu       sync.Mutex
	used     map[string][]bool // guarded by mu; per role, per response
	requests []llm.Request     // guarded by mu; every call taken, in order
}

type entry struct {
	Response
	re *regexp.Regexp
}

// New returns an engine for s. s must come from Parse, or be checked the
// same way; New compiles its patterns.
func New(s *Script) (*Engine, error) {
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("scripted: new: %w", err)
	}
	e := &Engine{
		name:    "script",
		latency: time.Duration(s.LatencyMs) * time.Millisecond,
		pace:    time.Duration(s.DeltaIntervalMs) * time.Millisecond,
		roles:   make(map[string][]entry, len(s.Roles)),
		used:    make(map[string][]bool, len(s.Roles)),
	}
	for role, list := range s.Roles {
		entries := make([]entry, len(list))
		for i, r := range list {
			entries[i] = entry{Response: r}
			if r.MatchRegexp != "" {
				entries[i].re = regexp.MustCompile(r.MatchRegexp) // checked above
			}
		}
		e.roles[role] = entries
		e.used[role] = make([]bool, len(list))
	}
	return e, nil
}

// Stream implements llm.Engine. The response is chosen when the sequence is
// first iterated; a call whose context is already done consumes nothing.
func (e *Engine) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		idx, r, err := e.take(req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		latency := e.latency
		if r.LatencyMs != nil {
			latency = time.Duration(*r.LatencyMs) * time.Millisecond
		}
		if latency > 0 {
			t := time.NewTimer(latency)
			select {
			case <-ctx.Done():
				t.Stop()
				yield(llm.Chunk{}, ctx.Err())
				return
			case <-t.C:
			}
		}
		first := time.Now()
		for i, d := range splitText(r.Text) {
			if i > 0 && e.pace > 0 {
				// On the model's own clock: the time the consumer took
				// over the last delta does not slow the next one.
				t := time.NewTimer(time.Until(first.Add(time.Duration(i) * e.pace)))
				select {
				case <-ctx.Done():
					t.Stop()
				case <-t.C:
				}
			}
			if err := ctx.Err(); err != nil {
				yield(llm.Chunk{}, err)
				return
			}
			if !yield(llm.Chunk{Kind: llm.ChunkText, Text: d}, nil) {
				return
			}
		}
		if r.Error != "" {
			yield(llm.Chunk{}, &llm.Error{Kind: errorKinds[r.ErrorKind], Engine: llm.EngineScripted, Message: r.Error})
			return
		}
		calls := make([]llm.ToolCall, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			id := c.ID
			if id == "" {
				id = req.Agent + "-" + strconv.Itoa(idx) + "-" + strconv.Itoa(i)
			}
			args := c.Args
			if len(args) == 0 {
				args = json.RawMessage(`{}`)
			}
			args, err := resolveRefs(args, req)
			if err != nil {
				yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrorScript, Engine: llm.EngineScripted, Message: err.Error()})
				return
			}
			calls[i] = llm.ToolCall{ID: id, Name: c.Name, Args: args}
			if !yield(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: &calls[i]}, nil) {
				return
			}
		}
		usage := estimateUsage(req, r.Response)
		if !yield(llm.Chunk{Kind: llm.ChunkUsage, Usage: &usage}, nil) {
			return
		}
		finish := llm.FinishStop
		if len(calls) > 0 {
			finish = llm.FinishToolCalls
		}
		raw := &llm.Raw{
			Engine: llm.EngineScripted,
			Data:   json.RawMessage(`{"role":` + strconv.Quote(req.Agent) + `,"response":` + strconv.Itoa(idx) + `}`),
		}
		yield(llm.Chunk{Kind: llm.ChunkFinish, Finish: finish, Raw: raw}, nil)
	}
}

// take marks and returns the first unused response of the request's role
// that accepts its task.
func (e *Engine) take(req llm.Request) (int, *entry, error) {
	task := lastUserText(req.Messages)
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.requests) < maxLogged {
		e.requests = append(e.requests, req)
	}
	list, ok := e.roles[req.Agent]
	if !ok {
		return 0, nil, &llm.Error{Kind: llm.ErrorScript, Engine: llm.EngineScripted,
			Message: fmt.Sprintf("%s has no responses for role %q", e.name, req.Agent)}
	}
	used := e.used[req.Agent]
	for i := range list {
		if used[i] || !list[i].accepts(task) {
			continue
		}
		used[i] = true
		return i, &list[i], nil
	}
	return 0, nil, &llm.Error{Kind: llm.ErrorScript, Engine: llm.EngineScripted,
		Message: fmt.Sprintf("%s: out of script: no unused %s response matches task %q", e.name, req.Agent, clip(task))}
}

func (en *entry) accepts(task string) bool {
	if en.Match != "" && !strings.Contains(task, en.Match) {
		return false
	}
	return en.re == nil || en.re.MatchString(task)
}

// maxLogged bounds the request log of an engine that a long-lived server
// keeps (a scripted model chosen in the browser).
const maxLogged = 10000

// Requests returns the requests that took (or tried to take) a response, in
// order, up to the first 10000: tests check what the model was shown and
// that no call happened after a cancellation.
func (e *Engine) Requests() []llm.Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]llm.Request(nil), e.requests...)
}

// Unused lists the responses never taken, as "role[index]", so a test can
// check that a scenario played the whole script.
func (e *Engine) Unused() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, role := range slices.Sorted(maps.Keys(e.used)) {
		for i, u := range e.used[role] {
			if !u {
				out = append(out, role+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	return out
}

func lastUserText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser && msgs[i].Text != "" {
			return msgs[i].Text
		}
	}
	return ""
}

// estimateUsage returns the scripted usage, or a quarter of the bytes the
// call would send and receive, so that token budgets can be tested without
// writing numbers into every script.
func estimateUsage(req llm.Request, r Response) llm.Usage {
	if r.Usage != nil {
		u := *r.Usage
		if u.TotalTokens == 0 {
			u.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
		return u
	}
	in := len(req.System)
	for _, m := range req.Messages {
		in += len(m.Text)
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Args)
		}
		for _, tr := range m.ToolResults {
			in += len(tr.Content)
		}
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	out := len(r.Text)
	for _, c := range r.ToolCalls {
		out += len(c.Name) + len(c.Args)
	}
	u := llm.Usage{PromptTokens: in/4 + 1, CompletionTokens: out/4 + 1}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// clip shortens a task for an error message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return ""
}
