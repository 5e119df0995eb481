package account

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
)

// ErrBusy means too many password checks are already running or waiting;
// the caller should try again in a moment (the server answers 503).
var ErrBusy = errors.New("account: too many sign-ins at once; try again in a moment")

// hashGate bounds the password hashing that runs at once. Each argon2id
// computation holds 19 MiB, so without a bound a flood of sign-ins (which
// need no account) grows the server's memory without limit. A few run at
// once, a bounded queue waits, and the rest are refused with ErrBusy.
type hashGate struct {
	slots      chan struct{}
	waiting    atomic.Int32
	maxWaiting int32
}

// newHashGate lets running computations run at once (GOMAXPROCS when 0)
// and queue wait for a slot (4 per slot when 0).
func newHashGate(running, queue int) *hashGate {
	if running <= 0 {
		running = runtime.GOMAXPROCS(0)
	}
	if queue <= 0 {
		queue = 4 * running
	}
	return &hashGate{slots: make(chan struct{}, running), maxWaiting: int32(queue)}
}

// do runs fn in a slot, waiting for one while the queue has room and ctx
// lasts.
func (g *hashGate) do(ctx context.Context, fn func()) error {
	select {
	case g.slots <- struct{}{}:
	default:
		if g.waiting.Add(1) > g.maxWaiting {
			g.waiting.Add(-1)
			return ErrBusy
		}
		select {
		case g.slots <- struct{}{}:
			g.waiting.Add(-1)
		case <-ctx.Done():
			g.waiting.Add(-1)
			return ctx.Err()
		}
	}
	defer func() { <-g.slots }()
	fn()
	return nil
}
