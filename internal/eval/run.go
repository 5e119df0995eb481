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
	concurrency = max(1, min(concurrency, len(cases)))
	type done struct {
		i int
		r Result
	}
	jobs := make(chan int)
	results := make(chan done)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for i := range jobs {
				results <- done{i, play(ctx, c, cases[i], exps[i])}
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := range cases {
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
	out := make([]Result, len(cases))
	played := make([]bool, len(cases))
	for res := range results {
		out[res.i], played[res.i] = res.r, true
		if onResult != nil {
			onResult(res.r)
		}
	}
	for i := range cases {
		if !played[i] {
			out[i] = Result{Case: cases[i], Expectation: exps[i], Verdict: Failed, Err: fmt.Errorf("not played: %w", ctx.Err())}
		}
	}
	return out, nil
}

// play runs and scores one case.
func play(ctx context.Context, c *Client, cs Case, e Expectation) Result {
	o, err := c.Play(ctx, cs.Messages)
	r := Result{Case: cs, Expectation: e, Observation: o}
	if err != nil {
		r.Verdict, r.Err = Failed, err
		return r
	}
	r.Verdict = Score(e, o)
	return r
}
