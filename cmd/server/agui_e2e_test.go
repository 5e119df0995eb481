package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"strategist/internal/event/eventtest"
)

// aguiEvent is one AG-UI event as sent: its type and its fields.
type aguiEvent map[string]any

func (e aguiEvent) typ() string { return e["type"].(string) }

// aguiRun posts a RunAgentInput to /ag-ui with token and reads the SSE
// stream to its end. A refused run returns its status and no events.
func aguiRun(t *testing.T, a *testApp, token string, input map[string]any) (int, []aguiEvent) {
	t.Helper()
	body, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var resp *http.Response
	for range 200 { // the orchestrator may still be starting
		req, err := http.NewRequestWithContext(ctx, "POST", a.URL+"/ag-ui", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if resp, err = http.DefaultClient.Do(req); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusServiceUnavailable {
			break
		}
		resp.Body.Close()
		time.Sleep(10 * time.Millisecond)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var events []aguiEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		var ev aguiEvent
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, events
}

// checkAGUIRun checks a run's events keep AG-UI's order: RUN_STARTED
// first with the run's ids and the state, every text message, tool call
// and step opened before its content and closed before the run ends, one
// terminal event last. It returns the state the deltas lead to.
func checkAGUIRun(t *testing.T, events []aguiEvent, threadID, runID string) map[string]any {
	t.Helper()
	if len(events) < 3 || events[0].typ() != "RUN_STARTED" || events[1].typ() != "STATE_SNAPSHOT" {
		t.Fatalf("the run starts with %v", types(events))
	}
	if events[0]["threadId"] != threadID || events[0]["runId"] != runID || events[0]["protocolVersion"] != "1.0" {
		t.Errorf("RUN_STARTED %v", events[0])
	}
	state, _ := events[1]["snapshot"].(map[string]any)
	texts, calls, steps := map[string]bool{}, map[string]string{}, map[string]bool{}
	for i, ev := range events {
		if _, ok := ev["timestamp"].(float64); !ok {
			t.Errorf("%s has no timestamp", ev.typ())
		}
		last := i == len(events)-1
		switch ev.typ() {
		case "RUN_FINISHED", "RUN_ERROR":
			if !last {
				t.Errorf("%s before the end", ev.typ())
			}
		case "TEXT_MESSAGE_START":
			texts[ev["messageId"].(string)] = true
		case "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END":
			if !texts[ev["messageId"].(string)] {
				t.Errorf("%s of a message not started", ev.typ())
			}
			if ev.typ() == "TEXT_MESSAGE_END" {
				delete(texts, ev["messageId"].(string))
			}
		case "TOOL_CALL_START":
			calls[ev["toolCallId"].(string)] = "started"
		case "TOOL_CALL_ARGS", "TOOL_CALL_END":
			if calls[ev["toolCallId"].(string)] != "started" {
				t.Errorf("%s of a call not started", ev.typ())
			}
			if ev.typ() == "TOOL_CALL_END" {
				calls[ev["toolCallId"].(string)] = "ended"
			}
		case "TOOL_CALL_RESULT":
			if calls[ev["toolCallId"].(string)] != "ended" || ev["messageId"] == "" {
				t.Errorf("result of call %v", ev["toolCallId"])
			}
		case "STEP_STARTED":
			steps[ev["stepName"].(string)] = true
		case "STEP_FINISHED":
			if !steps[ev["stepName"].(string)] {
				t.Errorf("step %v finished, not started", ev["stepName"])
			}
			delete(steps, ev["stepName"].(string))
		case "STATE_DELTA":
			var err error
			if state, err = applyPatch(state, ev["delta"].([]any)); err != nil {
				t.Fatalf("STATE_DELTA: %v", err)
			}
		}
	}
	if end := events[len(events)-1]; end.typ() != "RUN_FINISHED" && end.typ() != "RUN_ERROR" {
		t.Errorf("the run ends with %s", end.typ())
	}
	if len(texts) > 0 || len(steps) > 0 {
		t.Errorf("left open: messages %v, steps %v", texts, steps)
	}
	return state
}

func types(events []aguiEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.typ())
	}
	return out
}

func count(events []aguiEvent, typ string) int {
	n := 0
	for _, e := range events {
		if e.typ() == typ {
			n++
		}
	}
	return n
}

// applyPatch applies RFC 6902 add, remove and replace operations to doc.
func applyPatch(doc map[string]any, ops []any) (map[string]any, error) {
	var root any = doc
	for _, o := range ops {
		op := o.(map[string]any)
		path := op["path"].(string)
		toks := strings.Split(path, "/")[1:]
		for i, tk := range toks {
			toks[i] = strings.ReplaceAll(strings.ReplaceAll(tk, "~1", "/"), "~0", "~")
		}
		var err error
		if root, err = patchAt(root, toks, op["op"].(string), op["value"]); err != nil {
			return nil, fmt.Errorf("%s %s: %w", op["op"], path, err)
		}
	}
	return root.(map[string]any), nil
}

// patchAt applies one operation at toks below doc and returns the new doc.
func patchAt(doc any, toks []string, op string, val any) (any, error) {
	if len(toks) == 0 {
		return val, nil
	}
	tk := toks[0]
	switch d := doc.(type) {
	case map[string]any:
		child, ok := d[tk]
		if len(toks) == 1 {
			switch {
			case op == "add":
				d[tk] = val
			case !ok:
				return nil, fmt.Errorf("no member %q", tk)
			case op == "remove":
				delete(d, tk)
			default:
				d[tk] = val
			}
			return d, nil
		}
		if !ok {
			return nil, fmt.Errorf("no member %q", tk)
		}
		nv, err := patchAt(child, toks[1:], op, val)
		d[tk] = nv
		return d, err
	case []any:
		i, err := strconv.Atoi(tk)
		if err != nil || i < 0 || i > len(d) || i == len(d) && !(op == "add" && len(toks) == 1) {
			return nil, fmt.Errorf("no index %q", tk)
		}
		if len(toks) > 1 {
			nv, err := patchAt(d[i], toks[1:], op, val)
			d[i] = nv
			return d, err
		}
		switch op {
		case "add":
			return append(d[:i], append([]any{val}, d[i:]...)...), nil
		case "remove":
			return append(d[:i], d[i+1:]...), nil
		default:
			d[i] = val
			return d, nil
		}
	}
	return nil, fmt.Errorf("%q is below a scalar", tk)
}

func newThreadID(t *testing.T) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// TestAGUIPlanInterruptResumeBuild: an AG-UI run on a new thread plans the
// acceptance request in a conversation of the thread's id, streaming text
// and tool calls, and ends with an interrupt for the plan; the next run
// resumes the interrupt and builds, with a step per sub-agent node and the
// strategy as state deltas that lead to the root's 89 genes. Another
// user's token does not find the thread, no token is a 401, and the
// decided interrupt cannot be resumed twice.
func TestAGUIPlanInterruptResumeBuild(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	thread := newThreadID(t)
	const request = `Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14`
	messages := []any{map[string]any{"id": "u1", "role": "user", "content": request}}

	status, plan := aguiRun(t, a, a.Token, map[string]any{"threadId": thread, "runId": "run-1", "messages": messages,
		"tools": []any{}, "context": []any{}, "state": map[string]any{}, "forwardedProps": map[string]any{}})
	if status != http.StatusOK {
		t.Fatalf("plan run: %d", status)
	}
	state := checkAGUIRun(t, plan, thread, "run-1")
	if state["conversationId"] != thread || state["strategy"] != nil {
		t.Errorf("state before the build %v", state)
	}
	if count(plan, "TEXT_MESSAGE_CONTENT") == 0 || count(plan, "TOOL_CALL_RESULT") == 0 {
		t.Errorf("no text or no tool calls: %v", types(plan))
	}
	end := plan[len(plan)-1]
	outcome, _ := end["outcome"].(map[string]any)
	if end.typ() != "RUN_FINISHED" || outcome["type"] != "interrupt" {
		t.Fatalf("the plan run ends %v", end)
	}
	interrupt := outcome["interrupts"].([]any)[0].(map[string]any)
	if interrupt["reason"] != "plan_approval" || !strings.HasPrefix(interrupt["message"].(string), "Plan ready: ") {
		t.Errorf("interrupt %v", interrupt)
	}

	// Another user does not find the thread; without a token, 401.
	u, err := a.app.accounts.CreateUser(context.Background(), "mallory"+thread[:8]+"@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := a.app.accounts.CreateAPIToken(context.Background(), u.ID, "m")
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := aguiRun(t, a, other, map[string]any{"threadId": thread, "runId": "x", "messages": messages}); status != http.StatusNotFound {
		t.Errorf("another user's thread: %d", status)
	}
	if status, _ := aguiRun(t, a, "", map[string]any{"threadId": thread, "runId": "x", "messages": messages}); status != http.StatusUnauthorized {
		t.Errorf("no token: %d", status)
	}
	if status, _ := aguiRun(t, a, a.Token, map[string]any{"threadId": "not-a-uuid", "runId": "x", "messages": messages}); status != http.StatusBadRequest {
		t.Errorf("a thread id that is no UUID: %d", status)
	}

	resume := map[string]any{"threadId": thread, "runId": "run-2", "messages": messages,
		"resume": []any{map[string]any{"interruptId": interrupt["id"], "status": "resolved"}}}
	status, build := aguiRun(t, a, a.Token, resume)
	if status != http.StatusOK {
		t.Fatalf("resume: %d", status)
	}
	state = checkAGUIRun(t, build, thread, "run-2")
	end = build[len(build)-1]
	result, _ := end["result"].(map[string]any)
	if end.typ() != "RUN_FINISHED" || end["outcome"].(map[string]any)["type"] != "success" || result["rootCount"] != float64(89) {
		t.Fatalf("the build ends %v", end)
	}
	if count(build, "STEP_STARTED") < 3 || count(build, "STATE_DELTA") == 0 {
		t.Errorf("steps and deltas: %v", types(build))
	}
	strategy, _ := state["strategy"].(map[string]any)
	var rootCount any
	for _, s := range strategy["steps"].([]any) {
		if step := s.(map[string]any); step["id"] == strategy["rootStepId"] {
			rootCount = step["count"]
		}
	}
	if rootCount != float64(89) || strategy["rootStepId"] != result["rootStepId"] {
		t.Errorf("the state's root %v counts %v", strategy["rootStepId"], rootCount)
	}
	if status, _ := aguiRun(t, a, a.Token, resume); status != http.StatusConflict {
		t.Errorf("resuming a decided interrupt: %d", status)
	}
	eventtest.Check(t, a.collect(thread, 0, 10*time.Second, untilTurnEnds(2)))

	// A plan declined: the run that cancels its interrupt has no turn, and
	// the plan stays unbuilt.
	declined := newThreadID(t)
	short := []any{map[string]any{"id": "u1", "role": "user", "content": "DNA repair genes on chromosome 14"}}
	_, plan = aguiRun(t, a, a.Token, map[string]any{"threadId": declined, "runId": "run-3", "messages": short,
		"forwardedProps": map[string]any{"site": "plasmodb"}})
	outcome, _ = plan[len(plan)-1]["outcome"].(map[string]any)
	if outcome["type"] != "interrupt" {
		t.Fatalf("the second plan ends %v", plan[len(plan)-1])
	}
	interrupt = outcome["interrupts"].([]any)[0].(map[string]any)
	answered := []any{short[0], map[string]any{"id": "a1", "role": "assistant", "content": "Plan ready"}}
	status, none := aguiRun(t, a, a.Token, map[string]any{"threadId": declined, "runId": "run-4", "messages": answered,
		"resume": []any{map[string]any{"interruptId": interrupt["id"], "status": "cancelled"}}})
	if status != http.StatusOK || strings.Join(types(none), " ") != "RUN_STARTED STATE_SNAPSHOT RUN_FINISHED" {
		t.Fatalf("declined: %d %v", status, types(none))
	}
	checkAGUIRun(t, none, declined, "run-4")
	hs, err := a.app.db.Handoffs(context.Background(), a.UserID, declined)
	if err != nil || len(hs) != 1 || hs[0].Status != "pending" {
		t.Errorf("the declined plan: %v %+v", err, hs)
	}
}
