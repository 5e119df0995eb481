package account

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestHashGateRefusesBeyondQueue(t *testing.T) {
	g := newHashGate(1, 2)
	hold := make(chan struct{})
	running := make(chan struct{})
	done := make(chan error, 3)
	go func() { done <- g.do(context.Background(), func() { close(running); <-hold }) }()
	<-running
	for range 2 {
		go func() { done <- g.do(context.Background(), func() {}) }()
	}
	for g.waiting.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if err := g.do(context.Background(), func() { t.Error("ran beyond the queue") }); !errors.Is(err, ErrBusy) {
		t.Errorf("a fourth caller = %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	close(hold)
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("queued caller: %v", err)
		}
	}
	if g.waiting.Load() != 0 || len(g.slots) != 0 {
		t.Errorf("gate not empty afterwards: %d waiting, %d running", g.waiting.Load(), len(g.slots))
	}
	if err := g.do(ctx, func() {}); err != nil {
		t.Errorf("free gate with a cancelled context still runs: %v", err)
	}
}
