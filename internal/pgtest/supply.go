package pgtest

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Copying the template and dropping a database each take the server half a
// second to well over a second on the shared development machine (the copy
// writes the whole template to the WAL; a drop forces a checkpoint), while
// most tests of the store or the API take a tenth of that. So under Main
// the test binary keeps a supply: clones made ahead of the tests that will
// ask for them, and the databases of ended tests dropped behind them, a few
// at once (concurrent drops share their checkpoints). Every test still gets
// a fresh clone of the template that no other test has touched; it just no
// longer waits for the copy or the drop. Main's Run waits for both before
// it returns.
//
// The supply's goroutines are owned by the supply and waited for by
// Main's Run (wg); the fields below mu are guarded by it.
var supply struct {
	mu     sync.Mutex
	active bool     // Main's tests are running: make ahead, drop behind
	asked  int      // clones handed out so far
	making int      // clones being made ahead
	ready  []string // clones made ahead, not handed out yet
	failed []error  // drops that failed, reported by Main
	wg     sync.WaitGroup
	drops  chan struct{} // a slot per drop running at once
}

const (
	// cloneAhead is how many clones are kept made or in the making ahead
	// of the tests: the default -parallel on the two-core machine, so that
	// two tests starting together find theirs made.
	cloneAhead = 2
	// dropsAtOnce bounds the drops running together (each holds an admin
	// connection of a server other test processes share).
	dropsAtOnce = 4
)

// startSupply is called by Main's Run before the tests run.
func startSupply() {
	supply.mu.Lock()
	defer supply.mu.Unlock()
	supply.active = true
	supply.drops = make(chan struct{}, dropsAtOnce)
}

// stopSupply is called by Main's Run after the tests ran: it waits for the
// clones being made and the drops under way, drops the clones nobody asked
// for, and returns the drops that failed.
func stopSupply() error {
	supply.mu.Lock()
	supply.active = false
	supply.mu.Unlock()
	supply.wg.Wait()
	supply.mu.Lock()
	left := supply.ready
	supply.ready = nil
	supply.mu.Unlock()
	for _, name := range left {
		dropBehind(name)
	}
	supply.wg.Wait()
	supply.mu.Lock()
	defer supply.mu.Unlock()
	return errors.Join(supply.failed...)
}

// takeClone returns a fresh clone of the template: one made ahead when
// there is one, else one made now. From the second clone a binary asks for
// on, it starts making the next ones ahead (a binary that asks once gets
// no spare made for nothing).
func takeClone() (string, error) {
	supply.mu.Lock()
	supply.asked++
	var name string
	if n := len(supply.ready); n > 0 {
		name, supply.ready = supply.ready[n-1], supply.ready[:n-1]
	}
	if supply.active && supply.asked >= 2 {
		for supply.making+len(supply.ready) < cloneAhead {
			supply.making++
			supply.wg.Go(makeAhead)
		}
	}
	supply.mu.Unlock()
	if name != "" {
		return name, nil
	}
	return cloneTemplate()
}

// makeAhead makes one clone for a test to come. A clone that fails is not
// kept: the test that would have had it makes its own and reports why.
func makeAhead() {
	name, err := cloneTemplate()
	supply.mu.Lock()
	defer supply.mu.Unlock()
	supply.making--
	switch {
	case err != nil:
	case supply.active:
		supply.ready = append(supply.ready, name)
	default:
		// The tests have ended while it was made.
		dropBehindLocked(name)
	}
}

// release drops the database of an ended test: behind it while Main's
// tests run, else now.
func release(name string) error {
	supply.mu.Lock()
	if supply.active {
		dropBehindLocked(name)
		supply.mu.Unlock()
		return nil
	}
	supply.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return dropDatabase(ctx, server.adminURL, name)
}

func dropBehind(name string) {
	supply.mu.Lock()
	defer supply.mu.Unlock()
	dropBehindLocked(name)
}

func dropBehindLocked(name string) {
	supply.wg.Go(func() {
		supply.drops <- struct{}{}
		defer func() { <-supply.drops }()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := dropDatabase(ctx, server.adminURL, name); err != nil {
			supply.mu.Lock()
			supply.failed = append(supply.failed, err)
			supply.mu.Unlock()
		}
	})
}
