package acp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// panickyHandler panics on "boom" and answers "ok" to anything else.
type panickyHandler struct{}

func (panickyHandler) Request(_ context.Context, method string, _ json.RawMessage) (any, error) {
	if method == "boom" {
		panic("a bug in a handler")
	}
	return map[string]string{"answer": "ok"}, nil
}

func (panickyHandler) Notify(context.Context, string, json.RawMessage) {}

// syncBuffer is a writer tests read after Serve returns.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestPanickingRequestAnswersInternalError: a request whose handler panics
// is answered with an internal error, and the connection goes on serving
// the next request.
func TestPanickingRequestAnswersInternalError(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"boom"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"fine"}` + "\n")
	out := &syncBuffer{}
	if err := NewConn(in, out).Serve(t.Context(), panickyHandler{}); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	answers := map[string]message{}
	for line := range strings.Lines(out.b.String()) {
		var m message
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		answers[string(m.ID)] = m
	}
	if a := answers["1"]; a.Error == nil || a.Error.Code != CodeInternalError {
		t.Errorf("the panicking request's answer = %+v, want an internal error", a)
	}
	if a := answers["2"]; a.Error != nil || !strings.Contains(string(a.Result), "ok") {
		t.Errorf("the next request's answer = %+v", a)
	}
}
