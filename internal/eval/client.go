package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"strategist/internal/event"
	"strategist/internal/event/sseclient"
	"strategist/internal/strategy"
)

// Client plays cases against a running Strategist over its public API, as
// a researcher's program would: it creates a conversation, sends each
// message as a plan turn, follows the SSE stream to the turn's end,
// accepts the handoff the planner requests, follows the execute turn, and
// finally reads the conversation's strategy.
type Client struct {
	BaseURL string // e.g. http://127.0.0.1:8080
	Token   string // API token (strategist user token); "" for a dev-auth server
	// HTTP makes the JSON requests and carries the streams; it must not
	// time out whole requests. Nil: http.DefaultClient.
	HTTP *http.Client
	// TurnTimeout bounds the wait for one turn (default 2 minutes).
	TurnTimeout time.Duration
}

// SiteID is the site every case's conversation is created on.
const SiteID = "plasmodb"

// apiError is an error answer of the API.
type apiError struct {
	Method, Path string
	Status       int
	Code         string
	Message      string
	RetryAfter   time.Duration
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s %s", e.Method, e.Path, e.Status, e.Code, e.Message)
}

// Check asks the server for its sites, so that a wrong URL or token is
// reported once, before any case is played.
func (c *Client) Check(ctx context.Context) error {
	err := c.callOnce(ctx, http.MethodGet, "/api/v1/sites", nil, nil)
	if ae, ok := errors.AsType[*apiError](err); ok && ae.Status == http.StatusUnauthorized {
		return fmt.Errorf("eval: not signed in: give an API token (strategist user token --email E): %w", err)
	}
	if err != nil {
		return fmt.Errorf("eval: the server at %s does not answer: %w", c.BaseURL, err)
	}
	return nil
}

// Play runs one conversation of messages and reports what it left.
func (c *Client) Play(ctx context.Context, messages []string) (Observation, error) {
	return c.play(ctx, messages, nil)
}

// PlayCase plays a case: its lists uploaded first, its conversation's
// controls set to them, then its messages; the lists are deleted after,
// so a run leaves the researcher's lists as it found them.
func (c *Client) PlayCase(ctx context.Context, cs Case) (o Observation, err error) {
	ids := map[string]string{}
	defer func() {
		for _, l := range cs.Lists {
			id, ok := ids[l.Name]
			if !ok {
				continue
			}
			if derr := c.call(context.WithoutCancel(ctx), http.MethodDelete, "/api/v1/gene-lists/"+url.PathEscape(id), nil, nil); derr != nil && err == nil {
				err = fmt.Errorf("eval: delete list %q: %w", l.Name, derr)
			}
		}
	}()
	for _, l := range cs.Lists {
		var made struct {
			ID string `json:"id"`
		}
		if err := c.call(ctx, http.MethodPost, "/api/v1/gene-lists", map[string]string{"name": l.Name, "text": l.Text}, &made); err != nil {
			return o, fmt.Errorf("eval: upload list %q: %w", l.Name, err)
		}
		ids[l.Name] = made.ID
	}
	var setup func(ctx context.Context, prefix string) error
	if ct := cs.Controls; ct != nil {
		setup = func(ctx context.Context, prefix string) error {
			body := map[string]any{"positives": nil, "negatives": nil}
			if ct.Positives != "" {
				body["positives"] = ids[ct.Positives]
			}
			if ct.Negatives != "" {
				body["negatives"] = ids[ct.Negatives]
			}
			if err := c.call(ctx, http.MethodPut, prefix+"/controls", body, nil); err != nil {
				return fmt.Errorf("eval: set controls: %w", err)
			}
			return nil
		}
	}
	return c.play(ctx, cs.Messages, setup)
}

// play runs one conversation of messages, after setup (when set) has
// prepared the new conversation, and reports what it left.
func (c *Client) play(ctx context.Context, messages []string, setup func(ctx context.Context, prefix string) error) (Observation, error) {
	var o Observation
	var conv struct {
		ID string `json:"id"`
	}
	if err := c.call(ctx, http.MethodPost, "/api/v1/conversations", map[string]string{"siteId": SiteID}, &conv); err != nil {
		return o, fmt.Errorf("eval: create conversation: %w", err)
	}
	o.ConversationID = conv.ID
	prefix := "/api/v1/conversations/" + url.PathEscape(conv.ID)
	if setup != nil {
		if err := setup(ctx, prefix); err != nil {
			return o, err
		}
	}
	var last int64
	for _, m := range messages {
		plan, err := c.planTurn(ctx, prefix, last, m)
		if err != nil {
			return o, err
		}
		last, o.Reply = plan.last, plan.reply
		o.Notes = append(o.Notes, plan.notes...)
		if plan.handoff == "" {
			continue
		}
		o.Handoffs++
		build, err := c.buildTurn(ctx, prefix, last, plan.handoff)
		if err != nil {
			return o, err
		}
		last, o.Reply = build.last, plan.reply+"\n"+build.reply
		o.Notes = append(o.Notes, build.notes...)
	}
	var snap strategy.Snapshot
	err := c.call(ctx, http.MethodGet, prefix+"/strategy", nil, &snap)
	if ae, ok := errors.AsType[*apiError](err); ok && ae.Status == http.StatusNotFound {
		return o, nil
	}
	if err != nil {
		return o, fmt.Errorf("eval: read strategy: %w", err)
	}
	observeStrategy(&o, snap)
	return o, nil
}

// turnOutcome is what one turn left on the stream.
type turnOutcome struct {
	reply   string   // the assistant's text
	handoff string   // the handoff the planner requested, "" when none
	last    int64    // the seq of the last record read
	notes   []string // how the turn ended, when it did not complete
}

// planTurn sends message as a plan turn and follows it to its end.
func (c *Client) planTurn(ctx context.Context, prefix string, after int64, message string) (turnOutcome, error) {
	var turn struct {
		TurnID string `json:"turnId"`
	}
	if err := c.call(ctx, http.MethodPost, prefix+"/turns", map[string]string{"message": message, "mode": "plan"}, &turn); err != nil {
		return turnOutcome{}, fmt.Errorf("eval: start plan turn: %w", err)
	}
	out, recs, err := c.followTurn(ctx, prefix, after, turn.TurnID)
	if err != nil {
		return out, fmt.Errorf("eval: plan turn: %w", err)
	}
	for _, r := range recs {
		if e, ok := decodeAs[*event.HandoffRequested](r); ok && r.TurnID == turn.TurnID {
			out.handoff = e.HandoffID
		}
	}
	return out, nil
}

// buildTurn accepts a handoff and follows the execute turn to its end. A
// server that accepts handoffs by itself (STRATEGIST_AUTO_APPROVE) answers
// the accept with a conflict; the turn is then found on the stream.
func (c *Client) buildTurn(ctx context.Context, prefix string, after int64, handoffID string) (turnOutcome, error) {
	var turn struct {
		TurnID string `json:"turnId"`
	}
	err := c.call(ctx, http.MethodPost, prefix+"/handoffs/"+url.PathEscape(handoffID)+"/accept", nil, &turn)
	if ae, ok := errors.AsType[*apiError](err); ok && ae.Status == http.StatusConflict && ae.Code == "HANDOFF_DECIDED" {
		_, err = c.follow(ctx, prefix, after, func(r event.Record) bool {
			e, ok := decodeAs[*event.HandoffAccepted](r)
			if ok && e.HandoffID == handoffID {
				turn.TurnID = e.ExecuteTurnID
			}
			return ok && e.HandoffID == handoffID
		})
	}
	if err != nil {
		return turnOutcome{}, fmt.Errorf("eval: accept handoff: %w", err)
	}
	out, _, err := c.followTurn(ctx, prefix, after, turn.TurnID)
	if err != nil {
		return out, fmt.Errorf("eval: execute turn: %w", err)
	}
	return out, nil
}

// followTurn reads the stream after seq to the turn's turn_end: the
// turn's assistant text, how it ended when it did not complete, and the
// records read.
func (c *Client) followTurn(ctx context.Context, prefix string, after int64, turnID string) (turnOutcome, []event.Record, error) {
	recs, err := c.follow(ctx, prefix, after, func(r event.Record) bool { return r.Type == "turn_end" && r.TurnID == turnID })
	if err != nil {
		return turnOutcome{last: after}, nil, err
	}
	out := turnOutcome{last: recs[len(recs)-1].Seq}
	var parts []string
	for _, r := range recs {
		if r.TurnID != turnID {
			continue
		}
		if e, ok := decodeAs[*event.AssistantMessage](r); ok {
			parts = append(parts, e.Content)
		}
		if e, ok := decodeAs[*event.TurnEnd](r); ok && e.Status != event.TurnCompleted {
			out.notes = append(out.notes, fmt.Sprintf("turn %s ended %s %s", turnID, e.Status, e.Error))
		}
	}
	out.reply = strings.Join(parts, "\n")
	return out, recs, nil
}

func decodeAs[T event.Event](r event.Record) (T, bool) {
	var zero T
	e, err := r.Decode()
	if err != nil {
		return zero, false
	}
	t, ok := e.(T)
	return t, ok
}

// follow reads the stream after seq until stop says so, within the turn
// timeout.
func (c *Client) follow(ctx context.Context, prefix string, after int64, stop func(event.Record) bool) ([]event.Record, error) {
	timeout := c.TurnTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	f := &sseclient.Follower{HTTPClient: c.HTTP}
	var recs []event.Record
	for r, err := range f.Follow(ctx, strings.TrimRight(c.BaseURL, "/")+prefix+"/events", c.Token, after) {
		if err != nil {
			return recs, err
		}
		recs = append(recs, r)
		if stop(r) {
			return recs, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return recs, fmt.Errorf("the stream did not reach the end in %s (%d events): %w", timeout, len(recs), err)
	}
	return recs, errors.New("the stream ended early")
}

// call sends a JSON request and decodes a 2xx answer into out. It waits
// and tries again while the server asks it to (429 with Retry-After, 503
// while starting, 409 while a turn of the conversation is still running).
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	for attempt := 0; ; attempt++ {
		err := c.callOnce(ctx, method, path, body, out)
		ae, ok := errors.AsType[*apiError](err)
		if !ok || attempt >= 120 {
			return err
		}
		wait := 250 * time.Millisecond
		switch {
		case ae.Status == http.StatusTooManyRequests:
			wait = max(ae.RetryAfter, wait)
		case ae.Status == http.StatusServiceUnavailable, ae.Status == http.StatusConflict && ae.Code == "TURN_RUNNING":
		default:
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (while waiting to retry: %w)", err, ctx.Err())
		case <-t.C:
		}
	}
}

func (c *Client) callOnce(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.BaseURL, "/")+path, rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ae := &apiError{Method: method, Path: path, Status: resp.StatusCode}
		var body struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &body) == nil {
			ae.Code, ae.Message = body.Error.Code, body.Error.Message
		}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			ae.RetryAfter = time.Duration(s) * time.Second
		}
		return ae
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return nil
}

// observeStrategy reads the answer from a strategy: its single root, or,
// when the strategy has several, the root created last (what the last
// build reported), with how many there are.
func observeStrategy(o *Observation, snap strategy.Snapshot) {
	if len(snap.Steps) == 0 {
		return
	}
	o.Built, o.Roots = true, len(snap.Roots)
	byID := map[strategy.StepID]strategy.Step{}
	for _, s := range snap.Steps {
		byID[s.ID] = s
	}
	root := snap.RootStepID
	if root == "" {
		for _, s := range snap.Steps {
			if slices.Contains(snap.Roots, s.ID) {
				root = s.ID
			}
		}
	}
	st, ok := byID[root]
	if !ok {
		o.RootStatus = "no root"
		return
	}
	o.RootStatus = st.CountStatus.String()
	if st.CountStatus == strategy.CountOK && st.Count != nil {
		n := *st.Count
		o.RootCount = &n
	}
	o.Approximate = st.CountProvenance != nil && st.CountProvenance.Approximate
	o.Tree = renderStep(byID, root, map[strategy.StepID]bool{}, &o.NotEvaluable)
	o.RecordType = snap.RecordType
	o.Parameters = map[string]map[string]string{}
	o.Structure = renderStructure(byID, root, map[strategy.StepID]bool{}, &o.Steps, o.Parameters)
	if st.CountStatus == strategy.CountNotEvaluable && len(o.NotEvaluable) == 0 {
		o.NotEvaluable = append(o.NotEvaluable, st.SearchName)
	}
}

// treeParams are the parameters that say what a search step selects, in
// the order they are looked for.
var treeParams = []string{"go_typeahead", "geneType", "chromosomeOptional", "sequenceId", "ds_gene_ids", "text_expression", "organism"}

// renderStep writes a step and its inputs like an expected tree, with
// searches and their key values: MINUS(GenesByGoTerm GO:0006281,
// GenesByLocation Pf3D7_05_v3). It collects the searches of steps marked
// not evaluable.
func renderStep(byID map[strategy.StepID]strategy.Step, id strategy.StepID, seen map[strategy.StepID]bool, notEvaluable *[]string) string {
	s, ok := byID[id]
	if !ok || seen[id] {
		return "?" + string(id)
	}
	seen[id] = true
	if s.CountStatus == strategy.CountNotEvaluable && s.Operator == "" && !slices.Contains(*notEvaluable, s.SearchName) {
		*notEvaluable = append(*notEvaluable, s.SearchName)
	}
	var inputs []string
	for _, in := range s.Inputs {
		inputs = append(inputs, renderStep(byID, in, seen, notEvaluable))
	}
	if s.Operator != "" {
		return string(s.Operator) + "(" + strings.Join(inputs, ", ") + ")"
	}
	name := s.SearchName
	for _, k := range treeParams {
		if v := strings.TrimSpace(s.Parameters[k]); v != "" {
			var terms []string
			if json.Unmarshal([]byte(v), &terms) == nil {
				v = strings.Join(terms, ",")
			}
			name += " " + v
			break
		}
	}
	if len(inputs) > 0 {
		name += "(" + strings.Join(inputs, ", ") + ")"
	}
	return name
}

// renderStructure writes a step and its inputs with search names only,
// the operands of INTERSECT and UNION sorted, so that two trees that
// differ only in operand order read the same. It counts the steps and
// collects each search's parameters.
func renderStructure(byID map[strategy.StepID]strategy.Step, id strategy.StepID, seen map[strategy.StepID]bool, steps *int, params map[string]map[string]string) string {
	s, ok := byID[id]
	if !ok || seen[id] {
		return "?" + string(id)
	}
	seen[id] = true
	*steps++
	var inputs []string
	for _, in := range s.Inputs {
		inputs = append(inputs, renderStructure(byID, in, seen, steps, params))
	}
	if s.Operator == strategy.RMinus && len(inputs) == 2 {
		return structureNode(OpMinus, []string{inputs[1], inputs[0]})
	}
	if s.Operator != "" {
		return structureNode(string(s.Operator), inputs)
	}
	params[s.SearchName] = s.Parameters
	if len(inputs) > 0 {
		return s.SearchName + "(" + strings.Join(inputs, ", ") + ")"
	}
	return s.SearchName
}

// structureNode writes an operator over its operands, sorting them when
// the operator is commutative.
func structureNode(op string, operands []string) string {
	if op == OpIntersect || op == OpUnion {
		operands = slices.Sorted(slices.Values(operands))
	}
	return op + "(" + strings.Join(operands, ", ") + ")"
}
