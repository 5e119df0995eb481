package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

const genesUsage = `usage: strategist genes [--format tsv|csv|json] [--url URL] [--token T] <conversation-id> <step-id>

Writes all of a step's genes to standard output, as the results panel's
download does: TSV (default), CSV or JSON, with where they come from.

  --format F   tsv, csv or json (default tsv)
  --url URL    server URL (default $STRATEGIST_URL, else http://127.0.0.1:8080)
  --token T    API token (default $STRATEGIST_TOKEN; from strategist user token)`

// genesCmd streams a step's genes from the server to stdout.
func genesCmd(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("strategist genes", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "tsv", "")
	baseURL := fs.String("url", getenv("STRATEGIST_URL"), "")
	token := fs.String("token", getenv("STRATEGIST_TOKEN"), "")
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return usageError{err.Error() + "\n" + genesUsage}
		}
		if fs.NArg() == 0 {
			break
		}
		pos, rest = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) != 2 || pos[0] == "" || pos[1] == "" {
		return usageError{genesUsage}
	}
	switch *format {
	case "tsv", "csv", "json":
	default:
		return usageError{fmt.Sprintf("--format %q: use tsv, csv or json\n%s", *format, genesUsage)}
	}
	base, err := serverURL(*baseURL)
	if err != nil {
		return err
	}
	target := strings.TrimRight(base, "/") + "/api/v1/conversations/" + url.PathEscape(pos[0]) +
		"/strategy/steps/" + url.PathEscape(pos[1]) + "/results?format=" + *format
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	if *token != "" {
		req.Header.Set("Authorization", "Bearer "+*token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("genes: %w (is the server at %s running?)", err, base)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Code, Message string }
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
			return fmt.Errorf("genes: %s (%s, HTTP %d)", e.Error.Message, e.Error.Code, resp.StatusCode)
		}
		return fmt.Errorf("genes: HTTP %d from %s", resp.StatusCode, base)
	}
	if _, err := io.Copy(stdout, resp.Body); err != nil {
		return fmt.Errorf("genes: %w", err)
	}
	return nil
}
