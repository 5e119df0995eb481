package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"strategist/internal/llm"
)

// Script is the parsed form of a script file.
type Script struct {
	// LatencyMs is the latency of every response that sets none itself.
	LatencyMs int `json:"latencyMs,omitempty"`
	// DeltaIntervalMs spaces a response's text deltas that far apart on
	// the model's clock (delta i is due i intervals after the first), so
	// that it streams at a model's pace whatever the consumer does
	// (benchmarks); 0 streams them at once.
	DeltaIntervalMs int `json:"deltaIntervalMs,omitempty"`
	// Roles maps Request.Agent ("planner", "executor", "subagent",
	// "summarizer", ...) to that role's responses, in the order they are
	// consumed.
	Roles map[string][]Response `json:"roles"`
}

// Response is one scripted model answer.
type Response struct {
	// Match, when set, must be a substring of the request's last user
	// message (the task the agent was given).
	Match string `json:"match,omitempty"`
	// MatchRegexp, when set, must match the request's last user message.
	MatchRegexp string `json:"matchRegexp,omitempty"`
	// Text is streamed as several deltas.
	Text string `json:"text,omitempty"`
	// ToolCalls are returned after the text, in order.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Error, when set, makes the call fail (after any Text) with an
	// *llm.Error of ErrorKind.
	Error string `json:"error,omitempty"`
	// ErrorKind is one of "unknown" (the default), "retryable", "auth",
	// "bad_request", "blocked", "script".
	ErrorKind string `json:"errorKind,omitempty"`
	// LatencyMs delays the first chunk; cancelling the context ends the
	// wait. Nil means the script's LatencyMs.
	LatencyMs *int `json:"latencyMs,omitempty"`
	// Usage is reported as is; nil means a deterministic estimate.
	Usage *llm.Usage `json:"usage,omitempty"`
}

// ToolCall is a scripted tool call. ID defaults to "<role>-<response>-<call>".
type ToolCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

var errorKinds = map[string]llm.ErrorKind{
	"":            llm.ErrorUnknown,
	"unknown":     llm.ErrorUnknown,
	"retryable":   llm.ErrorRetryable,
	"auth":        llm.ErrorAuth,
	"bad_request": llm.ErrorBadRequest,
	"blocked":     llm.ErrorBlocked,
	"script":      llm.ErrorScript,
}

// Parse decodes a script strictly (an unknown field is an error, so a typo
// does not silently change a test) and checks every response.
func Parse(data []byte) (*Script, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scripted: parse: %w", err)
	}
	if dec.More() {
		return nil, errors.New("scripted: parse: trailing data after the script object")
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("scripted: parse: %w", err)
	}
	return &s, nil
}

// Load reads and parses the script called name from fsys and returns an
// engine for it.
func Load(fsys fs.FS, name string) (*Engine, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("scripted: load %s: %w", name, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("scripted: load %s: %w", name, err)
	}
	e, err := New(s)
	if err != nil {
		return nil, fmt.Errorf("scripted: load %s: %w", name, err)
	}
	e.name = name
	return e, nil
}

func (s *Script) check() error {
	if s.LatencyMs < 0 {
		return errors.New("latencyMs is negative")
	}
	if s.DeltaIntervalMs < 0 {
		return errors.New("deltaIntervalMs is negative")
	}
	for role, list := range s.Roles {
		for i, r := range list {
			if err := r.check(); err != nil {
				return fmt.Errorf("roles.%s[%d]: %w", role, i, err)
			}
		}
	}
	return nil
}

func (r *Response) check() error {
	if r.Text == "" && len(r.ToolCalls) == 0 && r.Error == "" {
		return errors.New("a response needs text, toolCalls or error")
	}
	if r.Error != "" && len(r.ToolCalls) > 0 {
		return errors.New("a failing response cannot carry tool calls")
	}
	if _, ok := errorKinds[r.ErrorKind]; !ok {
		return fmt.Errorf("unknown errorKind %q", r.ErrorKind)
	}
	if r.ErrorKind != "" && r.Error == "" {
		return errors.New("errorKind without error")
	}
	if r.LatencyMs != nil && *r.LatencyMs < 0 {
		return errors.New("latencyMs is negative")
	}
	if r.MatchRegexp != "" {
		if _, err := regexp.Compile(r.MatchRegexp); err != nil {
			return fmt.Errorf("matchRegexp: %w", err)
		}
	}
	for j, c := range r.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("toolCalls[%d]: name is required", j)
		}
		if len(c.Args) > 0 {
			// Arguments are usually objects, but a script may send anything
			// (to test how a loop handles bad arguments); it must be JSON.
			if !json.Valid(c.Args) {
				return fmt.Errorf("toolCalls[%d]: args are not valid JSON", j)
			}
		}
	}
	return nil
}

// splitText cuts text into deltas of a dozen bytes or so, at spaces where it
// can, so that streaming is visible; the deltas concatenate to text.
func splitText(text string) []string {
	const target = 12
	var deltas []string
	var cur strings.Builder
	for piece := range strings.SplitAfterSeq(text, " ") {
		cur.WriteString(piece)
		if cur.Len() >= target {
			deltas = append(deltas, cur.String())
			cur.Reset()
		}
	}
	if cur.Len() > 0 {
		deltas = append(deltas, cur.String())
	}
	return deltas
}
