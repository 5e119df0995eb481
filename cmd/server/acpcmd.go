package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"strategist/internal/acp"
	"strategist/internal/event"
	"strategist/internal/event/sseclient"
)

const acpUsage = `usage: strategist acp [--url URL] [--token T] [--site S] [--model M]

Serves Strategist as an Agent Client Protocol agent on standard input and
output, for editors that start a local command (Zed, JetBrains IDEs). Each
session is a conversation on the running Strategist server and each prompt
a turn there, started with the API token: the turns run on the server, as
the token's user, and show live on the conversation's page.

  --url URL    server URL (default $STRATEGIST_URL, else http://127.0.0.1:8080)
  --token T    API token (default $STRATEGIST_TOKEN; from strategist user token)
  --site S     the site of new sessions' conversations (default plasmodb)
  --model M    the model of the turns (default: the server's)`

// acpCmd serves ACP on stdio until stdin ends or ctx does.
func acpCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("strategist acp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseURL := fs.String("url", getenv("STRATEGIST_URL"), "")
	token := fs.String("token", getenv("STRATEGIST_TOKEN"), "")
	site := fs.String("site", "plasmodb", "")
	model := fs.String("model", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return usageError{acpUsage}
	}
	base, err := serverURL(*baseURL)
	if err != nil {
		return err
	}
	if *token == "" {
		return usageError{"strategist acp needs an API token: pass --token or set STRATEGIST_TOKEN (strategist user token --email E)\n" + acpUsage}
	}
	b := &apiBackend{base: strings.TrimRight(base, "/"), token: *token, site: *site, model: *model, client: &http.Client{}}
	defer b.client.CloseIdleConnections()
	agent := &acp.Agent{Backend: b, Version: version}
	return agent.Serve(ctx, acp.NewConn(stdin, stdout))
}

// apiBackend is the running server's JSON API and event stream, called
// with the API token: the ACP agent's Backend.
type apiBackend struct {
	base, token, site, model string
	// client makes the API's short requests; the event stream has a
	// follower of its own.
	client *http.Client
}

// call sends one JSON request to /api/v1 and decodes the answer into out.
// A refusal becomes the agent's AuthError (401) or RequestError (another
// 4xx), with the server's message.
func (b *apiBackend) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.base+"/api/v1"+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := b.client.Do(req)
	if err != nil {
		return fmt.Errorf("Strategist at %s is not reachable: %w", b.base, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("acp: reading %s %s: %w", method, path, err)
	}
	if res.StatusCode >= 300 {
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		msg := e.Error.Message
		if msg == "" {
			msg = http.StatusText(res.StatusCode)
		}
		switch {
		case res.StatusCode == http.StatusUnauthorized:
			return &acp.AuthError{Message: "Strategist refused the API token (" + msg + "): set STRATEGIST_TOKEN to a token from strategist user token --email you@example.org"}
		case res.StatusCode < 500:
			return &apiRefusal{status: res.StatusCode, code: e.Error.Code, RequestError: acp.RequestError{Message: msg}}
		}
		return fmt.Errorf("Strategist answered %s %s with %d: %s", method, path, res.StatusCode, msg)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// apiRefusal is a 4xx answer other than 401: the message for the editor,
// and the status and code for the backend's own decisions.
type apiRefusal struct {
	status int
	code   string
	acp.RequestError
}

func (e *apiRefusal) Unwrap() error { return &e.RequestError }

func (b *apiBackend) CreateConversation(ctx context.Context) (acp.Conversation, error) {
	var conv struct {
		ID           string `json:"id"`
		LastEventSeq int64  `json:"lastEventSeq"`
	}
	if err := b.call(ctx, http.MethodPost, "/conversations", map[string]string{"siteId": b.site}, &conv); err != nil {
		return acp.Conversation{}, err
	}
	return acp.Conversation{ID: conv.ID, URL: b.base + "/conversations/" + conv.ID, LastEventSeq: conv.LastEventSeq}, nil
}

func (b *apiBackend) StartTurn(ctx context.Context, conversationID, message string) (string, error) {
	var out struct {
		TurnID string `json:"turnId"`
	}
	body := map[string]string{"message": message, "mode": "plan"}
	if b.model != "" {
		body["model"] = b.model
	}
	err := b.call(ctx, http.MethodPost, "/conversations/"+url.PathEscape(conversationID)+"/turns", body, &out)
	return out.TurnID, err
}

func (b *apiBackend) AcceptHandoff(ctx context.Context, conversationID, handoffID string) (string, error) {
	var out struct {
		TurnID string `json:"turnId"`
	}
	path := "/conversations/" + url.PathEscape(conversationID)
	err := b.call(ctx, http.MethodPost, path+"/handoffs/"+url.PathEscape(handoffID)+"/accept", nil, &out)
	if r, ok := errors.AsType[*apiRefusal](err); ok && r.status == http.StatusConflict && r.code == "HANDOFF_DECIDED" {
		// Accepted first elsewhere (the page, or the server itself with
		// STRATEGIST_AUTO_APPROVE): follow the build turn it started.
		var conv struct {
			Handoffs []struct {
				ID            string  `json:"id"`
				ExecuteTurnID *string `json:"executeTurnId"`
			} `json:"handoffs"`
		}
		if gerr := b.call(ctx, http.MethodGet, path, nil, &conv); gerr != nil {
			return "", gerr
		}
		for _, h := range conv.Handoffs {
			if h.ID == handoffID && h.ExecuteTurnID != nil {
				return *h.ExecuteTurnID, nil
			}
		}
	}
	return out.TurnID, err
}

func (b *apiBackend) CancelTurn(ctx context.Context, conversationID, turnID string) error {
	return b.call(ctx, http.MethodPost, "/conversations/"+url.PathEscape(conversationID)+"/turns/"+url.PathEscape(turnID)+"/cancel", nil, nil)
}

func (b *apiBackend) Events(ctx context.Context, conversationID string, after int64) iter.Seq2[event.Record, error] {
	streamURL := b.base + "/api/v1/conversations/" + url.PathEscape(conversationID) + "/events"
	return func(yield func(event.Record, error) bool) {
		for rec, err := range sseclient.Follow(ctx, streamURL, b.token, after) {
			if se, ok := errors.AsType[*sseclient.StatusError](err); ok && se.StatusCode == http.StatusUnauthorized {
				err = &acp.AuthError{Message: "Strategist refused the API token: " + se.Message}
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

func (b *apiBackend) Summary(ctx context.Context, conversationID string) (string, error) {
	var snap struct {
		RootStepID string `json:"rootStepId"`
		Steps      []struct {
			ID              string `json:"id"`
			DisplayName     string `json:"displayName"`
			Count           *int   `json:"count"`
			CountProvenance *struct {
				Source string `json:"source"`
			} `json:"countProvenance"`
		} `json:"steps"`
	}
	if err := b.call(ctx, http.MethodGet, "/conversations/"+url.PathEscape(conversationID)+"/strategy", nil, &snap); err != nil {
		if _, ok := errors.AsType[*apiRefusal](err); ok {
			return "No strategy has been built yet.", nil
		}
		return "", err
	}
	for _, s := range snap.Steps {
		if s.ID != snap.RootStepID || s.Count == nil {
			continue
		}
		src := ""
		if s.CountProvenance != nil && s.CountProvenance.Source != "" {
			src = " (" + s.CountProvenance.Source + ")"
		}
		return fmt.Sprintf("Root step %s (%s): %d genes%s.", s.ID, s.DisplayName, *s.Count, src), nil
	}
	return "", nil
}
