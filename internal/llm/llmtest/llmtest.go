// Package llmtest is the conformance suite of llm.Engine: what every engine
// must do, stated once through the interface. An engine's own tests call Run
// with a factory that sets the engine up to answer each Scenario (a fake
// server speaking the provider's real wire format, or a script); wire-format
// details stay in the engine's own tests.
//
// Run cannot see goroutines: the calling package's TestMain must verify that
// none is left behind (goleak.VerifyTestMain), which makes the cancellation
// cases also a leak check.
package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"strategist/internal/llm"
)

// Scenario is what the engine's counterpart (fake server or script) does
// for every request of one engine.
type Scenario int

// The scenarios. Each says what the counterpart answers; Run checks what the
// engine makes of it.
const (
	// Text: the answer TextAnswer (in pieces, where the wire has pieces),
	// then usage Usage and the end of a normal answer.
	Text Scenario = iota
	// ToolCall: one call of ToolName with ToolArgs, with usage Usage, then
	// the end of an answer that asks for tools. Ids are not required: the
	// agent loop derives missing ones.
	ToolCall
	// Hold: the first piece of Text ("Hel"), or nothing, then nothing more
	// until the request is cancelled.
	Hold
	// AuthError: the service rejects the credential, echoing Key in its
	// message.
	AuthError
	// BadRequest: the service rejects the request as malformed.
	BadRequest
	// Unavailable: the service is unavailable at every attempt; the engine
	// gives up after its attempts without waiting between them.
	Unavailable
	// Backoff: the service is unavailable at every attempt, and the
	// engine's wait before a retry lasts until its context ends.
	Backoff
	// Blocked: the service refuses to answer for safety or policy.
	Blocked
)

var scenarioNames = map[Scenario]string{
	Text: "Text", ToolCall: "ToolCall", Hold: "Hold", AuthError: "AuthError",
	BadRequest: "BadRequest", Unavailable: "Unavailable", Backoff: "Backoff", Blocked: "Blocked",
}

func (s Scenario) String() string { return scenarioNames[s] }

// What the counterparts answer.
const (
	// TextAnswer is the whole text of the Text scenario, streamed as "Hel",
	// "lo, ", "world." (or any split in at least two pieces).
	TextAnswer = "Hello, world."
	// ToolName is the tool the ToolCall scenario calls.
	ToolName = "search_for_searches"
	// ToolArgs are its arguments.
	ToolArgs = `{"query":"kinase"}`
)

// Usage is the usage the Text and ToolCall scenarios report.
var Usage = llm.Usage{PromptTokens: 12, CompletionTokens: 4, TotalTokens: 16}

// Engine is the engine under test.
type Engine struct {
	// New returns an engine whose counterpart plays s for every request
	// (Concurrent calls make eight requests of Text at once). It returns
	// nil when the engine cannot be made to meet s (the offline engine has
	// no service to fail); that case is skipped.
	New func(t *testing.T, s Scenario) llm.Engine
	// Request is the request every case sends, unless RequestFor gives one
	// for the scenario.
	Request llm.Request
	// RequestFor, when set, gives the request of a scenario (an engine
	// without a counterpart, like the offline one, answers what it is
	// asked).
	RequestFor func(s Scenario) llm.Request
	// Want is what the engine answers, when it is not the counterpart's
	// fixed answer (TextAnswer, Usage, ToolName, ToolArgs).
	Want *Want
	// Key is the credential the engine is configured with: no error may
	// contain it. "" when the engine has none.
	Key string
	// Name is the engine's llm.Error.Engine.
	Name string
}

// Want states what an engine without a scripted counterpart answers: an
// empty field accepts any value of the right shape (some text, a call of
// any name whose arguments decode).
type Want struct {
	Text     string
	Usage    *llm.Usage // nil: a usage chunk of any value
	ToolName string
	ToolArgs string
}

func (e Engine) want() Want {
	if e.Want != nil {
		return *e.Want
	}
	u := Usage
	return Want{Text: TextAnswer, Usage: &u, ToolName: ToolName, ToolArgs: ToolArgs}
}

func (e Engine) request(s Scenario) llm.Request {
	if e.RequestFor != nil {
		return e.RequestFor(s)
	}
	return e.Request
}

// Prompt is how long an engine may take to end its stream once its context
// is cancelled.
const Prompt = 5 * time.Second

// Run runs the conformance suite, one subtest per property.
func Run(t *testing.T, e Engine) {
	t.Run("TextThenFinish", func(t *testing.T) { e.run(t, Text, e.textThenFinish) })
	t.Run("ToolCallArgumentsDecode", func(t *testing.T) { e.run(t, ToolCall, e.toolCall) })
	t.Run("CancelEndsStream", func(t *testing.T) { e.run(t, Hold, e.cancelMidStream) })
	t.Run("ConsumerStops", func(t *testing.T) { e.run(t, Text, e.consumerStops) })
	t.Run("CancelDuringBackoff", func(t *testing.T) { e.run(t, Backoff, e.cancelDuringBackoff) })
	t.Run("Concurrent", func(t *testing.T) { e.run(t, Text, e.concurrent) })
	for _, c := range []struct {
		s    Scenario
		kind llm.ErrorKind
	}{
		{AuthError, llm.ErrorAuth},
		{BadRequest, llm.ErrorBadRequest},
		{Unavailable, llm.ErrorRetryable},
		{Blocked, llm.ErrorBlocked},
	} {
		t.Run("Error"+c.s.String(), func(t *testing.T) {
			e.run(t, c.s, func(t *testing.T, eng llm.Engine, req llm.Request) { e.typedError(t, eng, req, c.kind) })
		})
	}
}

func (e Engine) run(t *testing.T, s Scenario, check func(*testing.T, llm.Engine, llm.Request)) {
	t.Helper()
	eng := e.New(t, s)
	if eng == nil {
		t.Skipf("the engine cannot be made to play %s", s)
	}
	check(t, eng, e.request(s))
}

// collect ranges over a stream to its end, failing on anything yielded after
// an error or after the finish.
func collect(t *testing.T, seq func(func(llm.Chunk, error) bool)) ([]llm.Chunk, error) {
	t.Helper()
	var chunks []llm.Chunk
	var err error
	for c, cerr := range seq {
		switch {
		case err != nil:
			t.Errorf("chunk %+v yielded after the error %v", c, err)
		case cerr != nil:
			err = cerr
		case len(chunks) > 0 && chunks[len(chunks)-1].Kind == llm.ChunkFinish:
			t.Errorf("chunk %+v yielded after the finish", c)
		default:
			chunks = append(chunks, c)
		}
	}
	return chunks, err
}

// finished checks that chunks end with exactly one finish of want, and
// returns the usage they reported.
func finished(t *testing.T, chunks []llm.Chunk, want llm.FinishReason) *llm.Usage {
	t.Helper()
	var usage *llm.Usage
	finishes := 0
	for _, c := range chunks {
		switch c.Kind {
		case llm.ChunkFinish:
			finishes++
		case llm.ChunkUsage:
			if c.Usage == nil {
				t.Errorf("usage chunk without usage")
				continue
			}
			usage = c.Usage
		}
	}
	if finishes != 1 || len(chunks) == 0 || chunks[len(chunks)-1].Kind != llm.ChunkFinish {
		t.Fatalf("chunks %+v: want exactly one finish, last", chunks)
	}
	if got := chunks[len(chunks)-1].Finish; got != want {
		t.Errorf("finish = %v, want %v", got, want)
	}
	return usage
}

func checkUsage(t *testing.T, got, want *llm.Usage) {
	t.Helper()
	switch {
	case got == nil:
		t.Errorf("no usage reported")
	case want != nil && *got != *want:
		t.Errorf("usage = %+v, want %+v", *got, *want)
	}
}

// textThenFinish: text chunks that add up to the answer, then usage and
// one finish, last.
func (e Engine) textThenFinish(t *testing.T, eng llm.Engine, req llm.Request) {
	chunks, err := collect(t, eng.Stream(t.Context(), req))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	var text strings.Builder
	pieces := 0
	for _, c := range chunks {
		if c.Kind == llm.ChunkText {
			text.WriteString(c.Text)
			pieces++
		}
	}
	w := e.want()
	if w.Text != "" && text.String() != w.Text || text.Len() == 0 {
		t.Errorf("text = %q in %d chunks, want %q", text.String(), pieces, w.Text)
	}
	checkUsage(t, finished(t, chunks, llm.FinishStop), w.Usage)
}

// toolCall: a call comes whole, named, with arguments that decode as an
// object, before a finish that asks for tools.
func (e Engine) toolCall(t *testing.T, eng llm.Engine, req llm.Request) {
	chunks, err := collect(t, eng.Stream(t.Context(), req))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	var calls []*llm.ToolCall
	for _, c := range chunks {
		if c.Kind == llm.ChunkToolCall {
			calls = append(calls, c.ToolCall)
		}
	}
	w := e.want()
	if len(calls) == 0 || w.ToolName != "" && len(calls) != 1 {
		t.Fatalf("tool calls = %+v, want one (any number when Want names no tool)", calls)
	}
	for _, c := range calls {
		if c == nil || c.Name == "" {
			t.Fatalf("tool call %+v has no name", c)
		}
		var got map[string]any
		if err := json.Unmarshal(c.Args, &got); err != nil {
			t.Errorf("arguments %s of %s do not decode as an object: %v", c.Args, c.Name, err)
		}
		if w.ToolName == "" {
			continue
		}
		var want map[string]any
		_ = json.Unmarshal([]byte(w.ToolArgs), &want)
		if c.Name != w.ToolName || !reflect.DeepEqual(got, want) {
			t.Errorf("call %s %s, want %s %s", c.Name, c.Args, w.ToolName, w.ToolArgs)
		}
	}
	checkUsage(t, finished(t, chunks, llm.FinishToolCalls), w.Usage)
}

// cancelMidStream: cancelling the context while the stream waits (after
// its first chunk, or 50ms into a stream that has yielded none) ends it
// promptly with the context's error, and it never finishes.
func (e Engine) cancelMidStream(t *testing.T, eng llm.Engine, req llm.Request) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var mu sync.Mutex
	var cancelled time.Time
	cancelNow := func() {
		mu.Lock()
		defer mu.Unlock()
		if cancelled.IsZero() {
			cancelled = time.Now()
			cancel()
		}
	}
	timer := time.AfterFunc(50*time.Millisecond, cancelNow)
	defer timer.Stop()
	var got []llm.Chunk
	var gotErr error
	within(t, Prompt+time.Second, func() {
		for c, err := range eng.Stream(ctx, req) {
			if err != nil {
				gotErr = err
				break
			}
			got = append(got, c)
			cancelNow()
		}
	})
	for _, c := range got {
		if c.Kind == llm.ChunkFinish {
			t.Errorf("a cancelled stream finished: %+v", got)
		}
	}
	if !errors.Is(gotErr, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", gotErr)
	}
	mu.Lock()
	defer mu.Unlock()
	if d := time.Since(cancelled); d > Prompt {
		t.Errorf("the stream ended %v after the cancel, want within %v", d, Prompt)
	}
}

// within runs f, failing the test at once when it has not returned after
// d: a stream that ignores its context fails the suite instead of hanging
// it (f's goroutine is then left behind, and the leak check says so too).
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("the stream had not ended %v after it started, though its context was cancelled", d)
	}
}

// consumerStops: a caller that stops ranging gets nothing more (an engine
// that yielded again would panic here) and the call returns.
func (e Engine) consumerStops(t *testing.T, eng llm.Engine, req llm.Request) {
	n := 0
	for _, err := range eng.Stream(t.Context(), req) {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		n++
		break
	}
	if n != 1 {
		t.Errorf("chunks before stop = %d, want 1", n)
	}
}

// cancelDuringBackoff: cancelling while the engine waits to retry ends the
// call with the context's error.
func (e Engine) cancelDuringBackoff(t *testing.T, eng llm.Engine, req llm.Request) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stop := time.AfterFunc(50*time.Millisecond, cancel)
	defer stop.Stop()
	start := time.Now()
	var err error
	within(t, Prompt+time.Second, func() { _, err = collect(t, eng.Stream(ctx, req)) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > Prompt {
		t.Errorf("the call took %v, want the cancel to end it within %v", d, Prompt)
	}
}

// concurrent: calls in parallel on one engine share no mutable state (run
// under -race).
func (e Engine) concurrent(t *testing.T, eng llm.Engine, req llm.Request) {
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var text strings.Builder
			for c, err := range eng.Stream(t.Context(), req) {
				if err != nil {
					t.Errorf("call %d: %v", i, err)
					return
				}
				text.WriteString(c.Text)
			}
			if w := e.want().Text; w != "" && text.String() != w || text.Len() == 0 {
				t.Errorf("call %d: text %q, want %q", i, text.String(), w)
			}
		})
	}
	wg.Wait()
}

// typedError: a failure is an *llm.Error of the right kind, the last thing
// the stream yields, naming the engine and never containing the key.
func (e Engine) typedError(t *testing.T, eng llm.Engine, req llm.Request, kind llm.ErrorKind) {
	_, err := collect(t, eng.Stream(t.Context(), req))
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("error = %v (%T), want *llm.Error", err, err)
	}
	if le.Kind != kind {
		t.Errorf("kind = %v, want %v (%v)", le.Kind, kind, err)
	}
	if e.Name != "" && le.Engine != e.Name {
		t.Errorf("engine = %q, want %q", le.Engine, e.Name)
	}
	if llm.Retryable(err) != (kind == llm.ErrorRetryable) {
		t.Errorf("llm.Retryable(%v) = %v", err, llm.Retryable(err))
	}
	if e.Key == "" {
		return
	}
	for x := error(err); x != nil; x = errors.Unwrap(x) {
		if strings.Contains(x.Error(), e.Key) {
			t.Errorf("error text contains the API key: %q", x.Error())
		}
	}
}
