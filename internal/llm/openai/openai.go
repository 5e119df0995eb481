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

// Defaults applied by New when the Config leaves a field zero; the same as
// the Gemini engine's, so that both engines behave alike under load.
const (
	DefaultMaxAttempts = 4
	DefaultBackoffBase = time.Second
	DefaultBackoffMax  = 30 * time.Second
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

// Engine streams model calls to an OpenAI-compatible server. It is safe for
// concurrent use: each Stream call owns its own state.
type Engine struct {
	chat                oai.ChatCompletionService
	key                 string
	maxCompletionTokens bool
	policy              retryPolicy
	log                 *slog.Logger
}

// New checks cfg and builds an Engine. It makes no request and starts no
// goroutine.
func New(cfg Config) (*Engine, error) {
	base := cfg.BaseURL
	if base == "" {
		if cfg.APIKey == "" {
			return nil, ErrNoEndpoint
		}
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an http(s) URL", redact(base, cfg.APIKey))
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
	policy, err := newRetryPolicy(cfg.MaxAttempts, cfg.BackoffBase, cfg.BackoffMax, cfg.Sleep, cfg.Now)
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
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{
		chat:                oai.NewChatCompletionService(opts...),
		key:                 cfg.APIKey,
		maxCompletionTokens: maxCompletion,
		policy:              policy,
		log:                 log.With("component", "llm", "engine", Name),
	}, nil
}

// Stream sends one chat completion request and yields its text deltas,
// complete tool calls, usage and finish. See the package doc for the retry
// policy.
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
		out := &output{yield: yield}
		seed := callIDSeed(req)
		for attempt := 1; ; attempt++ {
			hint := &responseHint{}
			err := e.attempt(ctx, params, hint, seed, out)
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
func (e *Engine) attempt(ctx context.Context, params oai.ChatCompletionNewParams, hint *responseHint, seed string, out *output) error {
	stream := e.chat.NewStreaming(ctx, params, option.WithMiddleware(hint.middleware))
	defer stream.Close()
	acc := newAccumulator(seed)
	for stream.Next() {
		chunks, err := acc.add(stream.Current())
		for _, c := range chunks {
			if !out.send(c) {
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
		if !out.send(c) {
			return nil
		}
	}
	return err
}
