package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/telemetry"
)

// Defaults of the retry policy, applied by NewRetrier when a RetryConfig
// leaves a field zero. The hosted engines share them so that Gemini and an
// OpenAI-compatible server behave alike under load.
const (
	DefaultMaxAttempts = 4
	DefaultBackoffBase = time.Second
	DefaultBackoffMax  = 30 * time.Second
)

// RetryConfig configures a Retrier. Every field may be left zero.
type RetryConfig struct {
	// Engine names the engine in the retry warnings ("engine" next to
	// "component": "llm"), so that an operator sees which server struggles.
	Engine string
	// MaxAttempts bounds the requests one call makes (first try included).
	// Zero means DefaultMaxAttempts.
	MaxAttempts int
	// BackoffBase is the wait before the second attempt; it doubles with
	// each further attempt. Zero means DefaultBackoffBase.
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

// Retrier is the one retry policy of Strategist's hosted engines: rate
// limits, server errors, timeouts and dropped connections (ErrorRetryable)
// are retried with a jittered exponential backoff, or after exactly the
// wait the server asked for, at most MaxAttempts requests per call, and
// only while nothing has reached the caller, so that a retry never repeats
// text the researcher already saw. Every other error ends the call at once.
//
// What an engine's errors mean stays with the engine: it classifies each
// failed attempt into an *Error and the server's requested wait, and the
// Retrier decides what happens next. A Retrier holds no mutable state and
// is shared by all the calls of an engine.
type Retrier struct {
	cfg RetryConfig
	log *slog.Logger
}

// NewRetrier applies the defaults to cfg and checks it. Its errors name the
// bad setting without a prefix, for the engine to put its own in front.
func NewRetrier(cfg RetryConfig) (*Retrier, error) {
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	switch {
	case cfg.MaxAttempts < 0:
		return nil, fmt.Errorf("max attempts %d is negative", cfg.MaxAttempts)
	case cfg.BackoffBase < 0 || cfg.BackoffMax < 0:
		return nil, errors.New("backoff durations must not be negative")
	case cfg.BackoffBase > cfg.BackoffMax:
		return nil, fmt.Errorf("backoff base %v exceeds backoff max %v", cfg.BackoffBase, cfg.BackoffMax)
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepContext
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Retrier{cfg: cfg, log: log.With("component", "llm", "engine", cfg.Engine)}, nil
}

// Config returns the configuration in force, defaults applied, so that an
// engine (and its tests) can see the limits it runs under.
func (r *Retrier) Config() RetryConfig { return r.cfg }

// Now reads the Retrier's clock. Engines use it to turn a Retry-After date
// into a wait, so that tests control both with one hook.
func (r *Retrier) Now() time.Time { return r.cfg.Now() }

// Attempt makes one request of a model call and streams its answer through
// send. It returns nil when the answer was complete, or when send returned
// false because the caller stopped listening. Otherwise it returns the
// failure as an *Error a researcher can act on (its Kind decides whether
// another attempt follows) and the wait the server asked for, 0 if none.
type Attempt func(ctx context.Context, send func(Chunk) bool) (*Error, time.Duration)

// Stream runs attempt until one succeeds or the policy gives up, and yields
// what the attempts stream. It ends with the last attempt's *Error, or with
// ctx.Err() when ctx ends first; model is only for the retry warnings.
func (r *Retrier) Stream(ctx context.Context, model string, attempt Attempt) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		out := &output{yield: yield}
		for n := 1; ; n++ {
			lerr, wait := attempt(ctx, out.send)
			if lerr == nil || out.stopped {
				return
			}
			if ctx.Err() != nil {
				yield(Chunk{}, ctx.Err())
				return
			}
			delay, retry := r.next(n, lerr, wait, out.yielded)
			if !retry {
				if lerr.Kind == ErrorRetryable && !out.yielded {
					lerr.Message += r.giveUpNote(n, wait)
				}
				yield(Chunk{}, lerr)
				return
			}
			if span := trace.SpanFromContext(ctx); span.IsRecording() {
				span.SetAttributes(telemetry.KeyRetries.Int(n))
				span.AddEvent("retry", trace.WithAttributes(attribute.Int("attempt", n),
					attribute.Int("http.response.status_code", lerr.Status), attribute.String("delay", delay.String()),
					attribute.String("error", lerr.Error())))
			}
			r.log.WarnContext(ctx, "retrying model call",
				slog.String("model", model), slog.Int("attempt", n),
				slog.Int("status", lerr.Status), slog.Duration("delay", delay),
				slog.String("error", lerr.Error()))
			if err := r.cfg.Sleep(ctx, delay); err != nil {
				// A Sleep hook may fail on its own; ctx.Err() wins when
				// both happened, and the call never ends with a nil error.
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				yield(Chunk{}, err)
				return
			}
		}
	}
}

// output wraps the caller's yield so that the retry loop knows whether
// anything reached the caller (then no retry) and whether it stopped
// listening (then nothing more is yielded).
type output struct {
	yield   func(Chunk, error) bool
	yielded bool
	stopped bool
}

func (o *output) send(c Chunk) bool {
	o.yielded = true
	if !o.yield(c, nil) {
		o.stopped = true
		return false
	}
	return true
}

// next reports how long to wait after failed attempt number attempt (1-based)
// before trying again, or false when the call must end with err. wait is the
// delay the server asked for (0 if none).
func (r *Retrier) next(attempt int, err *Error, wait time.Duration, yielded bool) (time.Duration, bool) {
	if err.Kind != ErrorRetryable || yielded || attempt >= r.cfg.MaxAttempts {
		return 0, false
	}
	if wait > 0 {
		if wait > r.cfg.BackoffMax {
			return 0, false
		}
		return wait, true
	}
	return r.backoff(attempt), true
}

// backoff is the jittered exponential delay after attempt n: d = base·2ⁿ⁻¹
// capped at max, drawn uniformly from [d/2, d] so that many clients hit by
// the same outage do not come back in step.
func (r *Retrier) backoff(n int) time.Duration {
	base, maxDelay := r.cfg.BackoffBase, r.cfg.BackoffMax
	d := maxDelay
	if n-1 < 62 && base <= maxDelay>>(n-1) {
		d = base << (n - 1)
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// giveUpNote explains in the error message why a retryable error was not
// retried.
func (r *Retrier) giveUpNote(attempt int, wait time.Duration) string {
	if wait > r.cfg.BackoffMax {
		return fmt.Sprintf("; the server asks to wait %v, longer than the %v Strategist allows", wait, r.cfg.BackoffMax)
	}
	if attempt > 1 {
		return fmt.Sprintf("; gave up after %d attempts", attempt)
	}
	return ""
}

// sleepContext waits for d or until ctx ends, whichever comes first.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ParseRetryAfter reads a Retry-After header value: delay-seconds or an
// HTTP date (RFC 9110, section 10.2.3). It returns 0 when the value is absent,
// malformed, in the past or more than a day away, so that a broken header
// means "use the backoff" rather than "wait forever".
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 || secs > int64(24*time.Hour/time.Second) {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Transient reports whether err, a failure below HTTP, is worth another
// attempt: a timeout, a reset or refused connection, or a body cut short.
// Engines call it for errors that carry no status of their own.
func Transient(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, target := range []error{
		syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE,
		io.ErrUnexpectedEOF, io.EOF, context.DeadlineExceeded,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
