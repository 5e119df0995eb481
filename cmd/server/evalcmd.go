package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"strategist/internal/catalog/offline"
	"strategist/internal/eval"
)

const evalUsage = `usage: strategist eval [--url URL] [--token T] [--data DIR] [--concurrency N] [--failures] [--pathfinder FILE] [FILE.jsonl ...]

Plays the evaluation set against a running server through its public API,
as a researcher's program would: for each case a new conversation, each
message a plan turn followed on the SSE stream, the handoff accepted, the
execute turn followed to its end, and the strategy read. Each answer is
scored against the expected tree, counted from the raw gene data (not by
the server), and a table of accuracy by category is printed per file.

  --url URL          server URL (default $STRATEGIST_URL, else http://127.0.0.1:8080)
  --token T          API token (default $STRATEGIST_TOKEN; from strategist user token)
  --data DIR         raw gene data (default $STRATEGIST_DATA_DIR, else ./data)
  --concurrency N    conversations played at once (default 4)
  --failures         list every case that was not correct, with its conversation id
  --pathfinder FILE  also play structure cases (internal/eval/testdata/pathfinder.jsonl:
                     PathFinder's acceptance corpus) and print their own table
  FILE.jsonl         case files (default internal/eval/testdata/development.jsonl and heldout.jsonl)

Every case's conversation is left on the server; --failures names them.
The server limits how fast one user starts turns (STRATEGIST_TURN_RATE,
default 1 a second after a burst of 10) and how many run at once
(STRATEGIST_RUNNING_TURNS, default 5); the client waits when told to, so
raise both on the server for a faster run with more concurrency.`

// defaultCaseFiles are the team's evaluation sets, relative to the
// repository root.
var defaultCaseFiles = []string{"internal/eval/testdata/development.jsonl", "internal/eval/testdata/heldout.jsonl"}

// evalCmd scores the offline planner (or any model the server defaults to)
// on the evaluation set.
func evalCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("strategist eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseURL := fs.String("url", getenv("STRATEGIST_URL"), "")
	token := fs.String("token", getenv("STRATEGIST_TOKEN"), "")
	dataDir := fs.String("data", getenv("STRATEGIST_DATA_DIR"), "")
	concurrency := fs.Int("concurrency", 4, "")
	failures := fs.Bool("failures", false, "")
	pathfinder := fs.String("pathfinder", "", "")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error() + "\n" + evalUsage}
	}
	if *concurrency < 1 || *concurrency > 64 {
		return usageError{"--concurrency must be 1 to 64\n" + evalUsage}
	}
	base, err := serverURL(*baseURL)
	if err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 && *pathfinder == "" {
		files = defaultCaseFiles
	}
	data, err := eval.Load(offline.FindDataDir(*dataDir))
	if err != nil {
		return err
	}
	client := &eval.Client{BaseURL: base, Token: *token}
	if err := client.Check(ctx); err != nil {
		return err
	}
	for _, f := range files {
		results, err := evalFile(ctx, client, data, f, *concurrency, stdout, stderr)
		if err != nil {
			return err
		}
		if *failures {
			if err := eval.WriteFailures(stdout, results); err != nil {
				return err
			}
		}
	}
	if *pathfinder != "" {
		cases, err := eval.LoadStructureCases(*pathfinder)
		if err != nil {
			return err
		}
		start := time.Now()
		results := eval.RunStructure(ctx, client, cases, *concurrency)
		name := strings.TrimSuffix(filepath.Base(*pathfinder), filepath.Ext(*pathfinder))
		fmt.Fprintf(stdout, "\n%s (%d conversations, %s)\n", name, len(cases), time.Since(start).Round(time.Second))
		if err := eval.WriteStructureTable(stdout, name, results); err != nil {
			return err
		}
	}
	return nil
}

// evalFile plays one case file and prints its table; progress goes to
// progress. It fails when no case could be played at all (the server went
// away), or when the file does not check out against the data.
func evalFile(ctx context.Context, client *eval.Client, data *eval.Data, path string, concurrency int, out, progress io.Writer) ([]eval.Result, error) {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	cases, err := eval.LoadCases(path)
	if err != nil {
		return nil, err
	}
	start, done := time.Now(), 0
	results, err := eval.Run(ctx, client, data, cases, concurrency, func(eval.Result) {
		if done++; done%25 == 0 || done == len(cases) {
			fmt.Fprintf(progress, "%s: %d of %d cases played (%s)\n", name, done, len(cases), time.Since(start).Round(time.Second))
		}
	})
	if err != nil {
		return nil, err
	}
	var failed []error
	for _, r := range results {
		if r.Err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", r.Case.ID, r.Err))
		}
	}
	if len(failed) == len(results) && len(results) > 0 {
		return nil, fmt.Errorf("eval: %s: no case could be played: %w", name, errors.Join(failed[:min(3, len(failed))]...))
	}
	fmt.Fprintf(out, "\n%s (%d cases, %s)\n", name, len(cases), time.Since(start).Round(time.Second))
	if err := eval.Summarize(name, results).WriteTable(out); err != nil {
		return nil, err
	}
	return results, nil
}
