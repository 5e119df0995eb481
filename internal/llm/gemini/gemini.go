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

// Defaults applied by New when the Config leaves a field zero: the retry
// policy every hosted engine shares.
const (
	DefaultMaxAttempts = llm.DefaultMaxAttempts
	DefaultBackoffBase = llm.DefaultBackoffBase
	DefaultBackoffMax  = llm.DefaultBackoffMax
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
	// MaxAttempts, BackoffBase, BackoffMax, Sleep, Now and Logger set the
	// retry policy shared by the hosted engines: they fill the fields of the
	// same names in llm.RetryConfig, which says what each means. Zero values
	// mean the defaults above; Logger receives one warning per retry.
	MaxAttempts int
	BackoffBase time.Duration
	BackoffMax  time.Duration
	Sleep       func(ctx context.Context, d time.Duration) error
	Now         func() time.Time
	Logger      *slog.Logger
}

// Engine streams model calls to the Gemini API. It is safe for concurrent
// use: each Stream call owns its own state, and the genai client is shared.
type Engine struct {
	client *genai.Client
	secret llm.Redactor
	retry  *llm.Retrier
}

// New checks cfg and builds an Engine. It makes no request and starts no
// goroutine.
func New(cfg Config) (*Engine, error) {
	if cfg.APIKey == "" {
		return nil, ErrNoAPIKey
	}
	retry, err := llm.NewRetrier(llm.RetryConfig{
		Engine:      Name,
		MaxAttempts: cfg.MaxAttempts,
		BackoffBase: cfg.BackoffBase,
		BackoffMax:  cfg.BackoffMax,
		Sleep:       cfg.Sleep,
		Now:         cfg.Now,
		Logger:      cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	secret := llm.NewRedactor(cfg.APIKey, nil)
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
		return nil, fmt.Errorf("gemini: create client: %w", errors.New(secret.Redact(err.Error())))
	}
	return &Engine{client: client, secret: secret, retry: retry}, nil
}

// Stream sends one model call and yields its text deltas, tool calls, usage
// and finish. The retry policy (see the package doc) is llm.Retrier's; this
// engine only says what each failure means.
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
		seed := llm.CallIDSeed(req)
		e.retry.Stream(ctx, req.Model, func(ctx context.Context, send func(llm.Chunk) bool) (*llm.Error, time.Duration) {
			hint := &responseHint{}
			if err := e.attempt(context.WithValue(ctx, hintKey{}, hint), req.Model, contents, cfg, seed, send); err != nil {
				return e.classify(err, req.Model, hint)
			}
			return nil, 0
		})(yield)
	}
}

// attempt makes one request and streams its answer through send. It returns
// nil when the answer was complete or the caller stopped listening.
func (e *Engine) attempt(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig, seed string, send func(llm.Chunk) bool) error {
	acc := newAccumulator(seed)
	for resp, err := range e.client.Models.GenerateContentStream(ctx, model, contents, cfg) {
		if err != nil {
			return err
		}
		// Chunks come before the error: text Gemini produced before it
		// stopped for safety has already been streamed by then.
		chunks, err := acc.add(resp)
		for _, c := range chunks {
			if !send(c) {
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
		if !send(c) {
			return nil
		}
	}
	return nil
}
