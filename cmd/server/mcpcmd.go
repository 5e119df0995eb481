package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const mcpUsage = `usage: strategist mcp [--url URL] [--token T]

Serves Strategist's MCP tools on standard input and output, for MCP clients
that start a local command (Claude Desktop). It is a bridge: every message
goes to the running Strategist server's /mcp endpoint with the API token,
so the tools run there, as the token's user, on that server's database,
and the conversations they change update live in the browser.

  --url URL    server URL (default $STRATEGIST_URL, else http://127.0.0.1:8080)
  --token T    API token (default $STRATEGIST_TOKEN; from strategist user token)`

// mcpCmd bridges MCP over stdio to the server's Streamable HTTP endpoint
// until stdin ends or ctx does.
func mcpCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("strategist mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseURL := fs.String("url", getenv("STRATEGIST_URL"), "")
	token := fs.String("token", getenv("STRATEGIST_TOKEN"), "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return usageError{mcpUsage}
	}
	base, err := serverURL(*baseURL)
	if err != nil {
		return err
	}
	if *token == "" {
		return usageError{"strategist mcp needs an API token: pass --token or set STRATEGIST_TOKEN (strategist user token --email E)\n" + mcpUsage}
	}
	local := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	return bridgeMCP(ctx, local, strings.TrimRight(base, "/")+"/mcp", *token)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// bridgeMCP relays JSON-RPC messages between a local MCP transport and the
// server's endpoint: the client's requests and notifications go up, the
// server's answers come down. A request the server refuses (a revoked
// token, the server down) is answered locally with a JSON-RPC error that
// says why, so the MCP client shows it.
func bridgeMCP(ctx context.Context, local mcp.Transport, endpoint, token string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	down, err := local.Connect(ctx)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	defer down.Close()
	remote := &mcp.StreamableClientTransport{
		Endpoint:             endpoint,
		HTTPClient:           &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
		DisableStandaloneSSE: true,
	}
	up, err := remote.Connect(ctx)
	if err != nil {
		return fmt.Errorf("mcp: connect to %s: %w", endpoint, err)
	}
	defer up.Close()

	// pending are the calls sent up and not answered yet: when standard
	// input ends, the bridge waits for their answers before it stops.
	var mu sync.Mutex
	pending := map[jsonrpc.ID]bool{}
	unanswered := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(pending)
	}
	// Answers from the server go down until the bridge stops (a failed
	// read or write ends the relay; the requests that follow are answered
	// with the error below).
	relayDone := make(chan struct{})
	var relayPanic atomic.Value // a string, once relaying panicked
	go func() {
		defer close(relayDone)
		// A panic in relaying ends the bridge with an error that says so,
		// rather than the process with a stack trace.
		defer func() {
			if p := recover(); p != nil {
				relayPanic.Store(fmt.Sprint(p))
				cancel()
			}
		}()
		for {
			msg, err := up.Read(ctx)
			if err != nil {
				return
			}
			if r, ok := msg.(*jsonrpc.Response); ok {
				mu.Lock()
				delete(pending, r.ID)
				mu.Unlock()
			}
			if err := down.Write(ctx, msg); err != nil {
				return
			}
		}
	}()
	for {
		msg, err := down.Read(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
			waiting:
				for unanswered() > 0 {
					select {
					case <-relayDone:
						break waiting
					case <-ctx.Done():
						break waiting
					case <-time.After(10 * time.Millisecond):
					}
				}
			}
			stopped := ctx.Err() != nil
			cancel()
			<-relayDone
			if p := relayPanic.Load(); p != nil {
				return fmt.Errorf("mcp: relaying the server's answers failed: %s", p)
			}
			if errors.Is(err, io.EOF) || stopped {
				return nil
			}
			return fmt.Errorf("mcp: reading standard input: %w", err)
		}
		req, isCall := msg.(*jsonrpc.Request)
		isCall = isCall && req.IsCall()
		if isCall {
			mu.Lock()
			pending[req.ID] = true
			mu.Unlock()
		}
		if err := up.Write(ctx, msg); err != nil {
			if !isCall {
				continue // a notification the server did not take
			}
			mu.Lock()
			delete(pending, req.ID)
			mu.Unlock()
			reply := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: "Strategist at " + endpoint + " refused the request: " + err.Error()}}
			if werr := down.Write(ctx, reply); werr != nil {
				return fmt.Errorf("mcp: writing standard output: %w", werr)
			}
		}
	}
}

// bearer sends the API token with every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
