package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"strategist/internal/event"
	"strategist/internal/event/sseclient"
)

const watchUsage = `usage: strategist watch [--after N] [--url URL] [--token T] <conversation-id>

Follows a conversation's events in the terminal: turns, assistant text, tool
calls, and the delegation's tasks as their status changes. It resumes by
itself when the connection drops; Ctrl-C ends it.

  --after N    start after event N (default 0: the whole conversation)
  --url URL    server URL (default $STRATEGIST_URL, else http://127.0.0.1:8080)
  --token T    API token (default $STRATEGIST_TOKEN; from strategist user token)`

// watchCmd follows a conversation's event stream until ctx ends.
func watchCmd(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("strategist watch", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	after := fs.Int64("after", 0, "")
	baseURL := fs.String("url", getenv("STRATEGIST_URL"), "")
	token := fs.String("token", getenv("STRATEGIST_TOKEN"), "")
	// Flags may come before or after the conversation id.
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error() + "\n" + watchUsage}
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usageError{watchUsage}
	}
	conversationID := rest[0]
	if err := fs.Parse(rest[1:]); err != nil {
		return usageError{err.Error() + "\n" + watchUsage}
	}
	if len(fs.Args()) > 0 || conversationID == "" || *after < 0 {
		return usageError{watchUsage}
	}
	base, err := serverURL(*baseURL)
	if err != nil {
		return err
	}
	streamURL := strings.TrimRight(base, "/") + "/api/v1/conversations/" + url.PathEscape(conversationID) + "/events"

	p := newWatchPrinter(stdout, conversationID)
	f := &sseclient.Follower{OnDisconnect: p.disconnected}
	fmt.Fprintf(stdout, "watching conversation %s at %s (Ctrl-C to stop)\n", conversationID, base)
	for rec, err := range f.Follow(ctx, streamURL, *token, *after) {
		if err != nil {
			p.endLine()
			return watchError(err)
		}
		p.print(rec)
	}
	p.endLine()
	return nil
}

// watchError explains a refused stream.
func watchError(err error) error {
	if se, ok := errors.AsType[*sseclient.StatusError](err); ok {
		switch se.StatusCode {
		case http.StatusUnauthorized:
			return fmt.Errorf("watch: not signed in: pass --token or set STRATEGIST_TOKEN (strategist user token --email E): %w", err)
		case http.StatusNotFound:
			return fmt.Errorf("watch: no such conversation of yours: %w", err)
		}
	}
	return fmt.Errorf("watch: %w", err)
}

// watchPrinter renders records as compact terminal lines. Assistant text
// streams on one line as its deltas arrive; the delegation's nodes print a
// line per status change with a running tally.
type watchPrinter struct {
	w              io.Writer
	conversationID string
	openMessage    string          // message whose deltas are on the current line
	streamed       map[string]bool // messages already shown through their deltas
	delegations    map[string]*watchDelegation
	lastDisconnect string // the last disconnect reported, until an event arrives
}

type watchDelegation struct {
	order []string
	nodes map[string]*watchNode
}

type watchNode struct {
	label  string
	status event.NodeStatus
}

func newWatchPrinter(w io.Writer, conversationID string) *watchPrinter {
	return &watchPrinter{w: w, conversationID: conversationID, streamed: map[string]bool{}, delegations: map[string]*watchDelegation{}}
}

func (p *watchPrinter) endLine() {
	if p.openMessage != "" {
		fmt.Fprintln(p.w)
		p.openMessage = ""
	}
}

func (p *watchPrinter) line(format string, args ...any) {
	p.endLine()
	fmt.Fprintf(p.w, format+"\n", args...)
}

// disconnected reports a lost connection; while the server stays
// unreachable the same failure is reported once.
func (p *watchPrinter) disconnected(err error, lastSeq int64, _ time.Duration) {
	why := "closed by the server"
	if err != nil {
		why = "lost: " + err.Error()
	}
	msg := fmt.Sprintf("… connection %s; resuming after event %d", why, lastSeq)
	if msg == p.lastDisconnect {
		return
	}
	p.lastDisconnect = msg
	p.line("%s", msg)
}

func (p *watchPrinter) print(r event.Record) {
	p.lastDisconnect = ""
	e, err := r.Decode()
	if err != nil {
		p.line("#%d %s (cannot show: %v)", r.Seq, r.Type, err)
		return
	}
	if d, ok := e.(*event.AssistantDelta); ok {
		if p.openMessage != d.MessageID {
			p.endLine()
			fmt.Fprint(p.w, "  assistant: ")
			p.openMessage = d.MessageID
			p.streamed[d.MessageID] = true
		}
		fmt.Fprint(p.w, strings.ReplaceAll(d.Delta, "\n", "\n             "))
		return
	}
	switch e := e.(type) {
	case *event.TurnStart:
		extra := ""
		if e.HandoffID != "" {
			extra = " · from handoff " + short(e.HandoffID)
		}
		if e.TraceID != "" {
			extra += " · trace " + e.TraceID // whole: it is what a trace viewer searches for
		}
		p.line("▶ turn %s · %s · %s%s", short(e.TurnID), e.Mode, e.Model, extra)
	case *event.AssistantMessage:
		if !p.streamed[e.MessageID] {
			p.line("  assistant: %s", strings.ReplaceAll(e.Content, "\n", "\n             "))
		} else {
			p.endLine()
		}
	case *event.ToolCallStart:
		p.line("  → %s %s", e.Name, compact(e.Args, 100))
	case *event.ToolCallEnd:
		p.line("  ← %s %s %s", e.Name, outcome(e.OK, e.Error), millis(e.DurationMs))
	case *event.ArtifactSaved:
		p.line("  artifact saved: %q (%s, v%d)", e.Artifact.Title, e.Artifact.Kind, e.Artifact.Version)
	case *event.HandoffRequested:
		p.line("  handoff %s requested: %s\n    accept: POST /api/v1/conversations/%s/handoffs/%s/accept",
			short(e.HandoffID), e.Goal, p.conversationID, e.HandoffID)
	case *event.HandoffAccepted:
		p.line("  handoff %s accepted: execute turn %s", short(e.HandoffID), short(e.ExecuteTurnID))
	case *event.GraphSnapshot:
		p.line("  strategy %s is at version %d", short(e.StrategyID), e.Version)
	case *event.RequirementsChecked:
		p.line("  requirements: %s", e.Tally())
		for _, r := range e.Requirements {
			p.line("    %s", r.Line())
		}
	case *event.SubagentPlan:
		p.plan(e)
	case *event.SubagentTaskRetry:
		p.line("    %s retries (attempt %d): %s", e.NodeID, e.Attempt, e.Cause)
	case *event.SubagentTaskStart:
		p.nodeChange(e.DelegationID, e.NodeID, event.NodeRunning, fmt.Sprintf("attempt %d", e.Attempt))
	case *event.SubagentToolCallStart:
		p.line("    %s → %s %s", e.NodeID, e.Name, compact(e.Args, 80))
	case *event.SubagentToolCallEnd:
		p.line("    %s ← %s %s %s", e.NodeID, e.Name, outcome(e.OK, e.Error), millis(e.DurationMs))
	case *event.SubagentMessage:
		first, _, more := strings.Cut(strings.TrimSpace(e.Content), "\n")
		if more {
			first += " …"
		}
		p.line("    %s says: %s", e.NodeID, first)
	case *event.SubagentTaskEnd:
		detail := millis(e.DurationMs)
		switch {
		case e.RootStepID != "":
			detail = "root " + e.RootStepID + " " + detail
		case e.Error != "":
			detail = e.Error + " " + detail
		}
		p.nodeChange(e.DelegationID, e.NodeID, e.Status, strings.TrimSpace(detail))
	case *event.Usage:
		// Totals come with turn_end.
	case *event.Error:
		retry := ""
		if e.Retryable {
			retry = " (retryable)"
		}
		p.line("  ! %s: %s%s", e.Code, e.Message, retry)
	case *event.TurnResumed:
		p.line("↻ turn %s resumed (run %d): %s", short(e.TurnID), e.Run, e.Reason)
	case *event.TurnEnd:
		msg := ""
		if e.Error != "" {
			msg = ": " + e.Error
		}
		p.line("■ turn %s %s%s in %s · %d tokens", short(e.TurnID), e.Status, msg, millis(e.DurationMs), e.Usage.TotalTokens)
	}
}

func (p *watchPrinter) plan(e *event.SubagentPlan) {
	d := &watchDelegation{nodes: map[string]*watchNode{}}
	for _, n := range e.Nodes {
		d.order = append(d.order, n.ID)
		d.nodes[n.ID] = &watchNode{label: n.Label, status: event.NodeQueued}
	}
	p.delegations[e.DelegationID] = d
	p.line("  delegation %s: %s (%d nodes)", short(e.DelegationID), e.Goal, len(e.Nodes))
	for _, n := range e.Nodes {
		what := n.Kind
		if n.Operator != "" {
			what += " " + n.Operator
		}
		deps := ""
		if len(n.DependsOn) > 0 {
			deps = " after " + strings.Join(n.DependsOn, ", ")
		}
		p.line("    %s %s %q%s", n.ID, what, n.Label, deps)
	}
}

// nodeChange prints a node's new status with the delegation's tally.
func (p *watchPrinter) nodeChange(delegationID, nodeID string, status event.NodeStatus, detail string) {
	label, tally := "", ""
	if d := p.delegations[delegationID]; d != nil {
		if n := d.nodes[nodeID]; n != nil {
			n.status, label = status, fmt.Sprintf(" %q", n.label)
		}
		counts := map[event.NodeStatus]int{}
		for _, id := range d.order {
			counts[d.nodes[id].status]++
		}
		var parts []string
		for _, s := range []event.NodeStatus{event.NodeDone, event.NodeRunning, event.NodeQueued, event.NodeFailed, event.NodeTimeout, event.NodeSkipped, event.NodeCancelled} {
			if counts[s] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
			}
		}
		tally = "  [" + strings.Join(parts, " · ") + "]"
	}
	if detail != "" {
		detail = " (" + detail + ")"
	}
	p.line("    %s %s %s%s%s%s", nodeID, statusMark(status), status, detail, label, tally)
}

func statusMark(status event.NodeStatus) string {
	switch status {
	case event.NodeRunning:
		return "▸"
	case event.NodeDone:
		return "✓"
	case event.NodeSkipped:
		return "–"
	}
	return "✗"
}

func outcome(ok bool, e *event.ToolError) string {
	switch {
	case ok:
		return "ok"
	case e != nil:
		return "error " + e.Code + ": " + e.Message
	}
	return "error"
}

func millis(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }

// short abbreviates an id for a terminal line.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// compact renders JSON on one line, cut at n runes.
func compact(raw json.RawMessage, n int) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// serverURL is the --url of the commands that talk to a running server
// (watch, eval): STRATEGIST_URL's value or the local default, which must
// be an http(s) URL.
func serverURL(raw string) (string, error) {
	if raw == "" {
		raw = "http://127.0.0.1:8080"
	}
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", usageError{fmt.Sprintf("--url %q is not an http(s) URL", raw)}
	}
	return raw, nil
}
