package rules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	"strategist/internal/english"
	"strategist/internal/llm"
	"strategist/internal/plan"
)

// EngineName is the engine family name used in errors and model ids.
const EngineName = llm.EngineOffline

// The roles the engine plays, as agents name themselves in Request.Agent.
const (
	RolePlanner    = "planner"
	RoleExecutor   = "executor"
	RoleSubagent   = "subagent"
	RoleSummarizer = "summarizer"
)

// Defaults of Config.
const (
	// DefaultDeltaSize is the size text deltas aim for, in bytes.
	DefaultDeltaSize = 80
	// DefaultMaxCalls bounds the tool calls of one run the engine asks
	// for; past it the engine answers with text instead of calling again.
	DefaultMaxCalls = 120
)

// Config configures the engine. The zero value is ready to use.
type Config struct {
	// DeltaSize is the size text deltas aim for (default DefaultDeltaSize);
	// text is cut at spaces, so a delta may be a little longer.
	DeltaSize int
	// MaxCalls bounds the tool calls one run asks for (default
	// DefaultMaxCalls); a safety net, since every call the engine makes is
	// one it has not made before in the run.
	MaxCalls int
}

// Engine is Strategist's offline planner: an llm.Engine without a language
// model. It is deterministic and stateless: each call reads the request
// (the role, the user message, the tool results already in the history and
// the tools offered) and answers with the next tool calls or with text. It
// holds no mutable state, so one Engine serves every role and turn at once.
type Engine struct {
	cfg Config
}

var _ llm.Engine = (*Engine)(nil)

// New returns the offline engine. It cannot fail today; the error is there
// so that the model registry can treat every engine alike.
func New(cfg Config) (*Engine, error) {
	if cfg.DeltaSize < 0 || cfg.MaxCalls < 0 {
		return nil, errors.New("offline: new engine: negative bound")
	}
	if cfg.DeltaSize == 0 {
		cfg.DeltaSize = DefaultDeltaSize
	}
	if cfg.MaxCalls == 0 {
		cfg.MaxCalls = DefaultMaxCalls
	}
	return &Engine{cfg: cfg}, nil
}

// Stream answers one model call. Tool calls come as ChunkToolCall chunks
// and text as several ChunkText deltas; then one ChunkUsage with zero
// tokens (the engine runs no model, so it spends none and claims none)
// and a ChunkFinish. A request the engine cannot serve is an *llm.Error of
// kind ErrorBadRequest.
func (e *Engine) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		resp, err := e.respond(req)
		if err != nil {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrorBadRequest, Engine: EngineName, Message: err.Error(), Err: err})
			return
		}
		finish := llm.FinishStop
		if len(resp.calls) > 0 {
			finish = llm.FinishToolCalls
		}
		for _, d := range deltas(resp.text, e.cfg.DeltaSize) {
			if err := ctx.Err(); err != nil {
				yield(llm.Chunk{}, err)
				return
			}
			if !yield(llm.Chunk{Kind: llm.ChunkText, Text: d}, nil) {
				return
			}
		}
		for i := range resp.calls {
			c := resp.calls[i]
			if !yield(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{Name: c.name, Args: c.args}}, nil) {
				return
			}
		}
		if !yield(llm.Chunk{Kind: llm.ChunkUsage, Usage: &llm.Usage{}}, nil) {
			return
		}
		if err := ctx.Err(); err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		yield(llm.Chunk{Kind: llm.ChunkFinish, Finish: finish}, nil)
	}
}

// response is what the engine answers one call with: tool calls, or text.
type response struct {
	calls []call
	text  string
}

func say(text string) response { return response{text: text} }

// respond picks the role and lets it decide.
func (e *Engine) respond(req llm.Request) (response, error) {
	t, err := readTurn(req)
	if err != nil {
		return response{}, err
	}
	if len(t.calls) >= e.cfg.MaxCalls {
		return say(intro + " I stopped after " + fmt.Sprint(len(t.calls)) + " tool calls without finishing; " +
			"this is a limit of the offline planner. Please rephrase the request more simply."), nil
	}
	role := req.Agent
	if role == "" {
		role = t.guessRole()
	}
	switch role {
	case RolePlanner:
		return planTurn(t), nil
	case RoleExecutor:
		return executeTurn(t), nil
	case RoleSubagent:
		return subagentTurn(t), nil
	case RoleSummarizer:
		return summarize(req), nil
	}
	return response{}, fmt.Errorf("the offline planner plays the planner, executor, subagent and summarizer roles, not %q", role)
}

// intro opens everything the engine writes, so no reader mistakes it for a
// language model (the conversation page shows it once per conversation).
const intro = llm.OfflineIntro

// call is one tool call the engine asks for.
type call struct {
	name string
	args json.RawMessage
}

func newCall(name string, args any) call {
	b, err := marshal(args)
	if err != nil {
		// Arguments are maps and structs of strings; this cannot happen,
		// and a malformed call would be answered with a validation error.
		b = []byte(`{}`)
	}
	return call{name: name, args: b}
}

// key identifies a call by name and arguments, whatever their key order.
func (c call) key() string { return callKey(c.name, c.args) }

func callKey(name string, args json.RawMessage) string {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return name + "\x00" + string(args)
	}
	b, err := marshal(v)
	if err != nil {
		return name + "\x00" + string(args)
	}
	return name + "\x00" + string(b)
}

// marshal encodes v as compact JSON without HTML escaping, so texts with
// "<" or "&" read as written.
func marshal(v any) ([]byte, error) { return plan.Marshal(v) }

// done is a call of this run with its result.
type done struct {
	name   string
	args   json.RawMessage
	key    string
	result json.RawMessage
	ok     bool
	code   string
	msg    string
}

// decode reads the call's result into v.
func (d *done) decode(v any) bool {
	return d != nil && d.ok && json.Unmarshal(d.result, v) == nil
}

// turn is what the engine knows at one call: the user message that
// started the run, and the calls the run made so far with their results.
type turn struct {
	user string
	// earlier is the researcher's messages before this one, oldest first
	// (build messages are not theirs).
	earlier []string
	// sinceBuild is the tail of earlier after the last build: what a plan
	// not built yet was drafted from.
	sinceBuild []string
	// asked is the readings the question ending the previous turn offered
	// (their messages), nil when that turn asked nothing.
	asked  []string
	calls  []*done
	byKey  map[string]*done
	tools  map[string]bool
	rounds int
}

// readTurn reads the run so far from the request: the last user message
// starts it, and every assistant message after it is one of the engine's
// own responses, whose calls the next tool message answers.
func readTurn(req llm.Request) (*turn, error) {
	t := &turn{byKey: map[string]*done{}, tools: map[string]bool{}}
	for _, d := range req.Tools {
		t.tools[d.Name] = true
	}
	start := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, errors.New("the request has no user message")
	}
	t.user = req.Messages[start].Text
	sinceBuild := -1
	for _, m := range req.Messages[:start] {
		switch {
		case m.Role != llm.RoleUser:
		case strings.HasPrefix(strings.TrimSpace(m.Text), plan.BuildPrefix):
			sinceBuild = len(t.earlier)
		default:
			t.earlier = append(t.earlier, m.Text)
		}
	}
	if sinceBuild >= 0 {
		t.sinceBuild = t.earlier[sinceBuild:]
	} else {
		t.sinceBuild = t.earlier
	}
	// A yes to a question that offered one reading ("Should I run a text
	// search for it?" — "yes, go ahead") takes that reading: the turn goes
	// on as if the researcher had sent its message.
	t.asked = askedBefore(req.Messages[:start])
	if len(t.asked) == 1 && t.asked[0] != "" && english.Classify(t.user).Intent == english.IntentConfirm {
		t.user = t.asked[0]
	}
	pending := map[string]llm.ToolCall{}
	for _, m := range req.Messages[start+1:] {
		switch m.Role {
		case llm.RoleAssistant:
			t.rounds++
			for _, c := range m.ToolCalls {
				pending[c.ID] = c
			}
		case llm.RoleTool:
			for _, r := range m.ToolResults {
				c, ok := pending[r.CallID]
				if !ok {
					continue
				}
				delete(pending, r.CallID)
				d := &done{name: c.Name, args: c.Args, key: callKey(c.Name, c.Args), result: r.Content}
				d.ok, d.code, d.msg = outcome(r)
				t.calls = append(t.calls, d)
				if _, seen := t.byKey[d.key]; !seen {
					t.byKey[d.key] = d
				}
			}
		}
	}
	return t, nil
}

// askedBefore is the messages of the readings the previous turn's last
// question offered: its ask_researcher call, found among the assistant
// messages after the previous user message. Nil when it asked nothing.
func askedBefore(msgs []llm.Message) []string {
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != llm.RoleUser; i-- {
		for j := len(msgs[i].ToolCalls) - 1; j >= 0; j-- {
			c := msgs[i].ToolCalls[j]
			if c.Name != "ask_researcher" {
				continue
			}
			var args struct {
				Options []askOption `json:"options"`
			}
			if json.Unmarshal(c.Args, &args) != nil {
				return nil
			}
			var asked []string
			for _, o := range args.Options {
				asked = append(asked, o.Message)
			}
			return asked
		}
	}
	return nil
}

// outcome reads whether a tool result is a success, and its error code and
// message when it is not.
func outcome(r llm.ToolResult) (ok bool, code, msg string) {
	var head struct {
		OK      *bool  `json:"ok"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(r.Content, &head) != nil {
		return !r.IsError, "", ""
	}
	ok = !r.IsError && (head.OK == nil || *head.OK)
	return ok, head.Code, head.Message
}

// result returns the result of a call made in this run, or nil.
func (t *turn) result(c call) *done { return t.byKey[c.key()] }

// last returns the last call of a tool in this run, or nil.
func (t *turn) last(name string) *done {
	for i := len(t.calls) - 1; i >= 0; i-- {
		if t.calls[i].name == name {
			return t.calls[i]
		}
	}
	return nil
}

// has reports whether the role offers a tool.
func (t *turn) has(name string) bool { return t.tools[name] }

// guessRole names the role from its tools when a request does not.
func (t *turn) guessRole() string {
	switch {
	case t.has("finish_subtask"):
		return RoleSubagent
	case t.has("delegate_strategy_subtasks") || t.has("create_step"):
		return RoleExecutor
	case t.has("save_delegation_draft"):
		return RolePlanner
	case len(t.tools) == 0:
		return RoleSummarizer
	}
	return ""
}

// asks collects the calls a role still needs, each once.
type asks struct {
	t     *turn
	calls []call
	seen  map[string]bool
}

func newAsks(t *turn) *asks { return &asks{t: t, seen: map[string]bool{}} }

// get returns the result of c if the run made it; otherwise it asks for c
// (once) and returns nil.
func (a *asks) get(c call) *done {
	if d := a.t.result(c); d != nil {
		return d
	}
	if k := c.key(); !a.seen[k] {
		a.seen[k] = true
		a.calls = append(a.calls, c)
	}
	return nil
}

func (a *asks) pending() bool { return len(a.calls) > 0 }

// deltas cuts text into pieces of about size bytes, at spaces or line
// ends, so it streams as a model's text would.
func deltas(text string, size int) []string {
	var out []string
	for len(text) > size {
		cut := strings.LastIndexAny(text[:size], " \n")
		if cut <= 0 {
			cut = strings.IndexAny(text[size:], " \n")
			if cut < 0 {
				break
			}
			cut += size
		}
		out = append(out, text[:cut+1])
		text = text[cut+1:]
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}
