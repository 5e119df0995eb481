package gemini

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"time"

	"google.golang.org/genai"

	"strategist/internal/llm"
)

// Name is the engine name used in model ids ("gemini:<model>"), in
// llm.Raw.Engine and in llm.Error.Engine.
const Name = "gemini"

// DefaultBaseURL is the Gemini API's endpoint. New sets it explicitly so
// that GOOGLE_GEMINI_BASE_URL in the environment, which the SDK would
// otherwise read, cannot send the key elsewhere.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/"

// Defaults applied by New when the Config leaves a field zero.
const (
	DefaultMaxAttempts = 4
	DefaultBackoffBase = time.Second
	DefaultBackoffMax  = 30 * time.Second
)

// ErrNoAPIKey is returned by New when Config.APIKey is empty: the Gemini API
// refuses every request without a key, so failing at start-up is kinder than
// failing on the first turn.
var ErrNoAPIKey = errors.New("gemini: no API key (set GEMINI_API_KEY)")

// Config configures an Engine. Only APIKey is required.
type Config struct {
	// APIKey is the Gemini API key. It is sent in the x-goog-api-key header
	// and never appears in an error or a log line.
	APIKey string
	// BaseURL overrides the API endpoint; empty means DefaultBaseURL.
	BaseURL string
	// HTTPClient carries the requests; nil means a client on
	// http.DefaultTransport. Its Transport is wrapped, not modified.
	HTTPClient *http.Client
	// MaxAttempts bounds the requests one Stream call makes (first try
	// included). Zero means DefaultMaxAttempts.
	MaxAttempts int
	// BackoffBase is the wait before the second attempt; it doubles with each
	// further attempt. Zero means DefaultBackoffBase.
	BackoffBase time.Duration
	// BackoffMax caps every wait, including one the server asks for. Zero
	// means DefaultBackoffMax.
	BackoffMax time.Duration
	// Sleep waits between attempts; nil means a timer that stops early when
	// ctx ends. Tests inject one that records the delay and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads the clock, for Retry-After given as an HTTP date. Nil means
	// time.Now.
	Now func() time.Time
	// Logger receives one warning per retry. Nil discards.
	Logger *slog.Logger
}

// Engine streams model calls to the Gemini API. It is safe for concurrent
// use: each Stream call owns its own state, and the genai client is shared.
type Engine struct {
	client *genai.Client
	key    string
	policy retryPolicy
	log    *slog.Logger
}

// New checks cfg and builds an Engine. It makes no request and starts no
// goroutine.
func New(cfg Config) (*Engine, error) {
	if cfg.APIKey == "" {
		return nil, ErrNoAPIKey
	}
	policy, err := newRetryPolicy(cfg.MaxAttempts, cfg.BackoffBase, cfg.BackoffMax, cfg.Sleep, cfg.Now)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = hintTransport{next: next}

	// The backend and base URL are explicit so that GOOGLE_GENAI_USE_VERTEXAI
	// or GOOGLE_GEMINI_BASE_URL in the environment cannot redirect
	// Strategist's key elsewhere. The context is only used by the SDK to
	// look up Vertex AI credentials, which the Gemini API backend never does.
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: base},
	})
	if err != nil {
		// The SDK prints its whole ClientConfig, key included, into some of
		// its errors: keep only a redacted copy of the text.
		return nil, fmt.Errorf("gemini: create client: %w", errors.New(redact(err.Error(), cfg.APIKey)))
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{client: client, key: cfg.APIKey, policy: policy, log: log.With("component", "llm", "engine", Name)}, nil
}

// Stream sends one model call and yields its text deltas, tool calls, usage
// and finish. See the package doc for the retry policy.
func (e *Engine) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		if req.Model == "" {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrorBadRequest, Engine: Name, Message: "no model given"})
			return
		}
		contents, err := toContents(req.Messages)
		if err != nil {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrorBadRequest, Engine: Name, Message: err.Error(), Err: err})
			return
		}
		cfg, err := generateConfig(req)
		if err != nil {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrorBadRequest, Engine: Name, Message: err.Error(), Err: err})
			return
		}
		out := &output{yield: yield}
		seed := callIDSeed(req)
		for attempt := 1; ; attempt++ {
			hint := &responseHint{}
			err := e.attempt(context.WithValue(ctx, hintKey{}, hint), req.Model, contents, cfg, seed, out)
			if err == nil || out.stopped {
				return
			}
			if ctx.Err() != nil {
				yield(llm.Chunk{}, ctx.Err())
				return
			}
			lerr, wait := e.classify(err, req.Model, hint)
			delay, retry := e.policy.next(attempt, lerr, wait, out.yielded)
			if !retry {
				if lerr.Kind == llm.ErrorRetryable && !out.yielded {
					lerr.Message += giveUpNote(attempt, wait, e.policy)
				}
				yield(llm.Chunk{}, lerr)
				return
			}
			e.log.WarnContext(ctx, "retrying model call",
				slog.String("model", req.Model), slog.Int("attempt", attempt),
				slog.Int("status", lerr.Status), slog.Duration("delay", delay),
				slog.String("error", lerr.Error()))
			if err := e.policy.sleep(ctx, delay); err != nil {
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				yield(llm.Chunk{}, err)
				return
			}
		}
	}
}

// output wraps the caller's yield so that the retry loop knows whether
// anything reached the caller (then no retry) and whether it stopped
// listening (then nothing more is yielded).
type output struct {
	yield   func(llm.Chunk, error) bool
	yielded bool
	stopped bool
}

func (o *output) send(c llm.Chunk) bool {
	o.yielded = true
	if !o.yield(c, nil) {
		o.stopped = true
		return false
	}
	return true
}

// attempt makes one request and streams its answer into out. It returns nil
// when the answer was complete or the caller stopped listening.
func (e *Engine) attempt(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig, seed string, out *output) error {
	acc := newAccumulator(seed)
	for resp, err := range e.client.Models.GenerateContentStream(ctx, model, contents, cfg) {
		if err != nil {
			return err
		}
		// Chunks come before the error: text Gemini produced before it
		// stopped for safety has already been streamed by then.
		chunks, err := acc.add(resp)
		for _, c := range chunks {
			if !out.send(c) {
				return nil
			}
		}
		if err != nil {
			return err
		}
	}
	chunks, err := acc.finish()
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if !out.send(c) {
			return nil
		}
	}
	return nil
}
