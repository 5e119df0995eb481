package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Expectations computes every case's expectation from the raw data; the
// first case that does not check out is an error.
func Expectations(d *Data, cases []Case) ([]Expectation, error) {
	out := make([]Expectation, len(cases))
	var errs []error
	for i, c := range cases {
		e, err := c.Expect(d)
		if err != nil {
			errs = append(errs, err)
		}
		out[i] = e
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Run plays every case through the client, at most concurrency
// conversations at once, and scores each. onResult, when set, hears each
// result as it comes (on Run's goroutine). Results are in case order. A
// case the harness could not play is scored Failed with its error; Run
// itself fails only when the cases do not check out against the data.
//
// Workers only play cases and send results on a channel; Run owns the
// results and waits for every worker before returning.
func Run(ctx context.Context, c *Client, d *Data, cases []Case, concurrency int, onResult func(Result)) ([]Result, error) {
	exps, err := Expectations(d, cases)
	if err != nil {
		return nil, fmt.Errorf("eval: run: %w", err)
	}
	out := playAll(ctx, len(cases), concurrency, func(i int) Result { return play(ctx, c, cases[i], exps[i]) }, onResult)
	for i, r := range out {
		if r.Case.ID == "" {
			out[i] = Result{Case: cases[i], Expectation: exps[i], Verdict: Failed, Err: fmt.Errorf("not played: %w", ctx.Err())}
		}
	}
	return out, nil
}

// RunStructure plays every structure case through the client, at most
// concurrency conversations at once, and scores each.
func RunStructure(ctx context.Context, c *Client, cases []StructureCase, concurrency int) []StructureResult {
	out := playAll(ctx, len(cases), concurrency, func(i int) StructureResult {
		o, err := c.Play(ctx, cases[i].Messages)
		r := StructureResult{Case: cases[i], Observation: o, Err: err}
		if err == nil {
			r.Pass, r.Why = ScoreStructure(cases[i], o)
		}
		return r
	}, nil)
	for i, r := range out {
		if r.Case.ID == "" {
			out[i] = StructureResult{Case: cases[i], Err: fmt.Errorf("not played: %w", ctx.Err())}
		}
	}
	return out
}

// playAll runs play for 0..n-1, at most concurrency at once, and returns
// the results in order; a result left zero was not played (ctx ended).
// Workers only play and send results on a channel; playAll owns the
// results and waits for every worker before returning.
func playAll[T any](ctx context.Context, n, concurrency int, play func(int) T, onResult func(T)) []T {
	concurrency = max(1, min(concurrency, n))
	type done struct {
		i int
		r T
	}
	jobs := make(chan int)
	results := make(chan done)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for i := range jobs {
				results <- done{i, play(i)}
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := range n {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	out := make([]T, n)
	for res := range results {
		out[res.i] = res.r
		if onResult != nil {
			onResult(res.r)
		}
	}
	return out
}

// play runs and scores one case.
func play(ctx context.Context, c *Client, cs Case, e Expectation) Result {
	o, err := c.PlayCase(ctx, cs)
	r := Result{Case: cs, Expectation: e, Observation: o}
	if err != nil {
		r.Verdict, r.Err = Failed, err
		return r
	}
	r.Verdict = Score(e, o)
	return r
}
