package chat

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// One budget per user bounds the turns they start, whatever the way in
// (the JSON API, the page, MCP, the OpenAI-compatible API, AG-UI, A2A, and
// ACP through the JSON API): every turn starts in StartTurn or
// AcceptHandoff, and both spend it. It has two parts:
//
//   - a start rate: a token bucket per user (TurnRate a second, bursts of
//     TurnBurst), held by this process. Each replica holds its own, so N
//     replicas let a user start N times as fast; the running cap below is
//     what holds across them.
//   - a cap on the user's running turns (MaxRunning), counted by the start's
//     own transaction in the database (store.StartTurn.MaxRunning), so it
//     holds across replicas and two starts at once cannot both take the
//     last place.
//
// A turn the server starts itself (a plan accepted by STRATEGIST_AUTO_APPROVE)
// spends neither: the researcher's plan turn already did.

// Defaults of the per-user turn budget.
const (
	DefaultTurnRate   = 1.0
	DefaultTurnBurst  = 10
	DefaultMaxRunning = 5
)

// ErrBudget is matched by every BudgetError.
var ErrBudget = errors.New("chat: turn budget spent")

// BudgetError refuses a turn beyond the user's budget; callers answer 429
// (or their protocol's own refusal) with RetryAfter.
type BudgetError struct {
	// Running is set when the user's running turns are at the cap (else
	// the start rate is spent).
	Running bool
	// Limit is the cap or the burst that was reached.
	Limit int
	// RetryAfter is when a start may succeed again: for the rate, when the
	// bucket holds a token; for the cap, a guess (a turn must end first).
	RetryAfter time.Duration
}

func (e *BudgetError) Error() string {
	if e.Running {
		return fmt.Sprintf("chat: you have %d turns running, the most at once; wait for one to end", e.Limit)
	}
	return "chat: you are starting turns too fast; wait a moment"
}

// Is makes every BudgetError match ErrBudget.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// runningRetry is the Retry-After of a refusal at the running cap.
const runningRetry = 5 * time.Second

// starts holds each user's start-rate bucket. Buckets that are full again
// are dropped when the map grows, so it holds only users who started turns
// lately.
type starts struct {
	rate  rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// maxIdleBuckets is how many buckets the map holds before full ones are
// dropped.
const maxIdleBuckets = 10_000

func newStarts(perSecond float64, burst int) *starts {
	return &starts{rate: rate.Limit(perSecond), burst: burst, buckets: map[string]*rate.Limiter{}}
}

// take spends one start of userID's bucket, or says how long until one is
// there.
func (s *starts) take(userID string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.buckets[userID]
	if b == nil {
		if len(s.buckets) >= maxIdleBuckets {
			for id, old := range s.buckets {
				if old.TokensAt(now) >= float64(s.burst) {
					delete(s.buckets, id)
				}
			}
		}
		b = rate.NewLimiter(s.rate, s.burst)
		s.buckets[userID] = b
	}
	if b.AllowN(now, 1) {
		return nil
	}
	wait := time.Duration(math.Ceil((1 - b.TokensAt(now)) / float64(s.rate) * float64(time.Second)))
	return &BudgetError{Limit: s.burst, RetryAfter: max(wait, time.Second)}
}
