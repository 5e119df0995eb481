package openai

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"strategist/internal/llm"
)

// Name is the engine name used in model ids ("openai:<model>") and in
// llm.Error.Engine.
const Name = "openai"

// DefaultBaseURL is OpenAI's own endpoint, used when only a key is given.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Defaults applied by New when the Config leaves a field zero: the retry
// policy every hosted engine shares, so that both behave alike under load.
const (
	DefaultMaxAttempts = llm.DefaultMaxAttempts
	DefaultBackoffBase = llm.DefaultBackoffBase
	DefaultBackoffMax  = llm.DefaultBackoffMax
)

// The values of Config.TokenLimitField.
const (
	FieldMaxTokens           = "max_tokens"
	FieldMaxCompletionTokens = "max_completion_tokens"
)

// ErrNoEndpoint is returned by New when neither a base URL nor a key is
// configured: there is no server to talk to.
var ErrNoEndpoint = errors.New("openai: no server configured (set OPENAI_BASE_URL, or OPENAI_API_KEY for api.openai.com)")

// Config configures an Engine. BaseURL or APIKey is required.
type Config struct {
	// BaseURL is the server's API root, ending in /v1 for the usual servers.
	// Empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token when set. It never appears in an
	// error or a log line.
	APIKey string
	// HTTPClient carries the requests; nil means a client on
	// http.DefaultTransport.
	HTTPClient *http.Client
	// TokenLimitField names the request field carrying
	// Request.MaxOutputTokens: FieldMaxTokens, FieldMaxCompletionTokens, or
	// empty to choose by host (see the package doc).
	TokenLimitField string
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

// Engine streams model calls to an OpenAI-compatible server. It is safe for
// concurrent use: each Stream call owns its own state.
type Engine struct {
	chat                oai.ChatCompletionService
	secret              llm.Redactor
	maxCompletionTokens bool
	retry               *llm.Retrier
}

// New checks cfg and builds an Engine. It makes no request and starts no
// goroutine.
func New(cfg Config) (*Engine, error) {
	secret := llm.NewRedactor(cfg.APIKey, keyLike)
	base := cfg.BaseURL
	if base == "" {
		if cfg.APIKey == "" {
			return nil, ErrNoEndpoint
		}
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an http(s) URL", secret.Redact(base))
	}
	var maxCompletion bool
	switch cfg.TokenLimitField {
	case "":
		maxCompletion = u.Hostname() == "api.openai.com"
	case FieldMaxTokens:
	case FieldMaxCompletionTokens:
		maxCompletion = true
	default:
		return nil, fmt.Errorf("openai: token limit field %q is neither %s nor %s", cfg.TokenLimitField, FieldMaxTokens, FieldMaxCompletionTokens)
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
		return nil, fmt.Errorf("openai: %w", err)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// NewChatCompletionService, unlike NewClient, reads no OPENAI_* variable:
	// every setting below is explicit.
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &Engine{
		chat:                oai.NewChatCompletionService(opts...),
		secret:              secret,
		maxCompletionTokens: maxCompletion,
		retry:               retry,
	}, nil
}

// Stream sends one chat completion request and yields its text deltas,
// complete tool calls, usage and finish. The retry policy (see the package
// doc) is llm.Retrier's; this engine only says what each failure means.
func (e *Engine) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		if req.Model == "" {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrorBadRequest, Engine: Name, Message: "no model given"})
			return
		}
		params, err := e.params(req)
		if err != nil {
			yield(llm.Chunk{}, &llm.Error{Kind: llm.ErrorBadRequest, Engine: Name, Message: err.Error(), Err: err})
			return
		}
		seed := llm.CallIDSeed(req)
		e.retry.Stream(ctx, req.Model, func(ctx context.Context, send func(llm.Chunk) bool) (*llm.Error, time.Duration) {
			hint := &responseHint{}
			if err := e.attempt(ctx, params, hint, seed, send); err != nil {
				return e.classify(err, req.Model, hint)
			}
			return nil, 0
		})(yield)
	}
}

// attempt makes one request and streams its answer through send. It returns
// nil when the answer was complete or the caller stopped listening.
func (e *Engine) attempt(ctx context.Context, params oai.ChatCompletionNewParams, hint *responseHint, seed string, send func(llm.Chunk) bool) error {
	stream := e.chat.NewStreaming(ctx, params, option.WithMiddleware(hint.middleware))
	defer stream.Close()
	acc := newAccumulator(seed)
	for stream.Next() {
		chunks, err := acc.add(stream.Current())
		for _, c := range chunks {
			if !send(c) {
				return nil
			}
		}
		if err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	chunks, err := acc.finish()
	for _, c := range chunks {
		if !send(c) {
			return nil
		}
	}
	return err
}
