package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"strategist/internal/llm"
)

// The codes of tool errors fed back to the model. A handler may use its own
// codes through *ToolError; these are the ones the tool-calling loop
// (internal/agent) and argument validation produce.
const (
	// CodeValidation: the arguments do not match the tool's schema.
	CodeValidation = "VALIDATION_ERROR"
	// CodeUnknownTool: the model called a tool its role does not have.
	CodeUnknownTool = "UNKNOWN_TOOL"
	// CodeToolError: the handler failed with an untyped error.
	CodeToolError = "TOOL_ERROR"
	// CodeTimeout: the handler outlived the per-tool timeout.
	CodeTimeout = "TIMEOUT"
	// CodeCancelled: the run was cancelled while the call was pending or
	// running.
	CodeCancelled = "CANCELLED"
	// CodeNotRun: the model asked for the call, but the run stopped first
	// (round limit, token budget); recorded so the history stays well formed.
	CodeNotRun = "NOT_RUN"
	// CodeInterrupted: history held a call without a result (the process
	// stopped mid-call); recorded when the history is rebuilt.
	CodeInterrupted = "INTERRUPTED"
)

// ToolError is a failure a handler wants the model to see with a code and
// details, rendered as {"ok":false,"code":...,"message":...,"details":...}.
// Any other error a handler returns becomes CodeToolError with its message.
type ToolError struct {
	Code    string
	Message string
	Details map[string]any
	Err     error
}

// Error describes the failure for logs; the model sees Code and Message.
func (e *ToolError) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the underlying error, if any.
func (e *ToolError) Unwrap() error { return e.Err }

// Tool is one capability offered to a model: a name, a description, the JSON
// schema of its arguments (derived once from a Go struct) and a typed
// handler. Tools are values; a role lists the ones it offers in a Toolset.
type Tool struct {
	name        string
	description string
	args        *argSchema
	decl        llm.ToolDecl
	timeout     time.Duration // overrides Config.ToolTimeout when > 0
	endsRun     bool
	// prepare decodes and validates raw arguments and returns the handler
	// bound to them; it returns the handler's typed result. Decoding runs on
	// the loop's goroutine, whose stack has already grown for the
	// validator's recursion; only the handler runs on a call's goroutine.
	prepare func(raw json.RawMessage) (Handler, error)
	// err records why the tool cannot be offered; NewToolset reports it.
	err error
}

// ToolOption adjusts a tool as it is built.
type ToolOption func(*toolOptions)

type toolOptions struct {
	edit    func(*jsonschema.Schema)
	timeout time.Duration
	endsRun bool
}

// WithSchema lets the tool edit its inferred schema before it is resolved:
// add an enum, bounds or better descriptions than struct tags can carry.
// Validation then enforces the edited schema. The edited schema is made
// once per argument type and edit function and then shared, so edit must
// depend on nothing but s (a function literal that captures variables
// would get the schema its first instance made).
func WithSchema(edit func(s *jsonschema.Schema)) ToolOption {
	return func(o *toolOptions) { o.edit = edit }
}

// WithTimeout gives the tool its own timeout instead of the role's
// Config.ToolTimeout: the delegate tool runs sub-agents for minutes, a
// catalog lookup should fail in seconds.
func WithTimeout(d time.Duration) ToolOption {
	return func(o *toolOptions) { o.timeout = d }
}

// EndsRun makes a successful call of the tool the end of the run: the loop
// records the round's results and stops (StopCompleted) without asking the
// model again. A sub-agent's finish_subtask is such a tool; it saves a model
// call per sub-agent. A failed call (bad arguments) does not end the run, so
// the model can correct it.
func EndsRun() ToolOption {
	return func(o *toolOptions) { o.endsRun = true }
}

var toolNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

// NewTool builds a tool whose arguments are the JSON form of Args (a struct:
// `json` tags give the names, fields without omitempty/omitzero are
// required, `jsonschema` tags give descriptions) and whose handler returns a
// Result, rendered for the model as described on Toolset.
//
// Inference cannot describe recursive types: declare such a field (a
// delegation plan) as json.RawMessage, which accepts any JSON, and check it
// in the handler, or describe it with WithSchema.
//
// NewTool never fails: a tool that cannot be described (Args not a struct,
// a bad name) carries the error, and NewToolset rejects it, so a role's tool
// list stays a plain list of expressions.
func NewTool[Args any, Result any](name, description string, fn func(ctx context.Context, args Args) (Result, error), opts ...ToolOption) Tool {
	t := Tool{name: name, description: description}
	var o toolOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.timeout < 0 {
		t.err = fmt.Errorf("tool: %s: negative timeout", name)
		return t
	}
	t.timeout, t.endsRun = o.timeout, o.endsRun
	if !toolNameRE.MatchString(name) {
		t.err = fmt.Errorf("tool: name %q: want letters, digits, _ or -, at most 64", name)
		return t
	}
	if fn == nil {
		t.err = fmt.Errorf("tool: %s: nil handler", name)
		return t
	}
	args, err := newArgSchema[Args](o.edit)
	if err != nil {
		t.err = fmt.Errorf("tool: %s: %w", name, err)
		return t
	}
	t.args = args
	t.decl = llm.ToolDecl{Name: name, Description: description, Schema: args.rendered}
	t.prepare = func(raw json.RawMessage) (Handler, error) {
		var a Args
		if err := args.decode(raw, &a); err != nil {
			return nil, err
		}
		return func(ctx context.Context) (any, error) { return fn(ctx, a) }, nil
	}
	return t
}

// Name returns the name the model calls the tool by.
func (t Tool) Name() string { return t.name }

// Decl returns the declaration sent to engines.
func (t Tool) Decl() llm.ToolDecl { return t.decl }

// Err reports why the tool cannot be used, or nil.
func (t Tool) Err() error { return t.err }

// Timeout returns the tool's own timeout (WithTimeout), or 0 for the
// role's.
func (t Tool) Timeout() time.Duration { return t.timeout }

// EndsRun reports whether a successful call of the tool ends the run
// (the EndsRun option).
func (t Tool) EndsRun() bool { return t.endsRun }

// Prepare decodes and validates raw arguments and returns the handler bound
// to them, so that a loop can check a call on its own goroutine and run the
// handler on another. Bad arguments are a *ToolError with CodeValidation.
func (t Tool) Prepare(raw json.RawMessage) (Handler, error) {
	if t.err != nil {
		return nil, t.err
	}
	return t.prepare(raw)
}

// Call decodes and validates raw arguments and runs the handler, outside any
// loop: for tests of a role's tools and for callers (the offline engine)
// that drive tools directly. Bad arguments are a *ToolError with
// CodeValidation.
func (t Tool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	if t.err != nil {
		return nil, t.err
	}
	h, err := t.prepare(raw)
	if err != nil {
		return nil, err
	}
	return h(ctx)
}

// Handler is a tool's handler bound to decoded arguments.
type Handler func(ctx context.Context) (any, error)

// Toolset is the ordered, explicit list of tools one role offers. Nothing is
// shared between roles by accident: each role builds its own.
//
// A successful result is rendered for the model as a JSON object with
// "ok":true first: a Result that marshals to an object keeps its fields, in
// order, after "ok"; one that marshals to null gives {"ok":true}; any other
// JSON value (array, string, number, boolean) is wrapped as
// {"ok":true,"result":<value>}. A result object may not have its own "ok"
// key (that would let a tool claim failure without an error): it becomes a
// CodeToolError. Failures are {"ok":false,"code","message","details"?}.
type Toolset struct {
	tools  []Tool
	byName map[string]int
	decls  []llm.ToolDecl
}

// ErrDuplicateTool is returned by NewToolset when two tools share a name.
var ErrDuplicateTool = errors.New("tool: duplicate tool name")

// NewToolset checks the tools (each well built, names unique) and keeps
// their order for the declarations.
func NewToolset(tools ...Tool) (*Toolset, error) {
	s := &Toolset{tools: tools, byName: make(map[string]int, len(tools)), decls: make([]llm.ToolDecl, 0, len(tools))}
	for i, t := range tools {
		if t.err != nil {
			return nil, fmt.Errorf("tool: new toolset: %w", t.err)
		}
		if t.prepare == nil {
			return nil, fmt.Errorf("tool: new toolset: tool %d was not built with NewTool", i)
		}
		if _, dup := s.byName[t.name]; dup {
			return nil, fmt.Errorf("tool: new toolset: %w: %s", ErrDuplicateTool, t.name)
		}
		s.byName[t.name] = i
		s.decls = append(s.decls, t.decl)
	}
	return s, nil
}

// Decls returns the declarations in toolset order.
func (s *Toolset) Decls() []llm.ToolDecl { return s.decls }

// Names returns the tool names in toolset order.
func (s *Toolset) Names() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.name
	}
	return names
}

// Lookup finds a tool by name.
func (s *Toolset) Lookup(name string) (Tool, bool) {
	i, ok := s.byName[name]
	if !ok {
		return Tool{}, false
	}
	return s.tools[i], true
}

// callKey is the context key of the running tool call.
type callKey struct{}

// Call identifies a tool call in progress.
type Call struct {
	ID    string
	Name  string
	Round int
}

// CallFrom returns the tool call a handler is running for, so that a tool
// which emits events of its own (the delegate tool streaming sub-agent
// progress) can attach them to its call.
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

// WithCall returns a context carrying the tool call c, for the loop that
// runs the call's handler.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}
