package web

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/strategy"
	"strategist/web/view"
)

// ConversationPage is what the conversation page and its live fragments are
// drawn from: the projection and what the request adds to it.
type ConversationPage struct {
	Conv *view.Conversation
	// CSRFToken goes into the forms of the page and of fragments.
	CSRFToken string
	// Now is when the page (or fragment) is drawn: running timers show the
	// time since their start.
	Now time.Time
	MD  *Markdown
	// Models are the models the picker offers; Model is the one selected.
	Models []ModelOption
	Model  string
	// ReadOnly draws the page for a share link: no forms, nothing that
	// loads more from the owner's conversation.
	ReadOnly bool
	// ShareToken is the share link's token a read-only page is drawn for:
	// its steps' genes download through the link.
	ShareToken string
	// Overlaps are the strategy's combines' inputs compared gene by gene
	// (strategies.Service.Overlaps), for the strategy the page shows; a
	// combine without one shows none.
	Overlaps map[strategy.StepID]strategy.Overlap
}

// Markdown is an assistant's text as HTML, its mentions of the strategy's
// steps linked to their boxes in the graph and titled with their names.
func (p *ConversationPage) Markdown(src string) string {
	var steps map[string]string
	if s := p.Conv.Strategy; s != nil && len(s.Steps) > 0 {
		steps = make(map[string]string, len(s.Steps))
		for _, st := range s.Steps {
			steps[string(st.ID)] = cmp.Or(st.DisplayName, st.SearchName)
		}
	}
	return p.MD.HTMLWithSteps(src, steps)
}

// ModelOption is a model the researcher can pick.
type ModelOption struct {
	ID      string
	Name    string
	Default bool
}

// ModelOptions lists a registry's models for the picker.
func ModelOptions(l llm.ModelList) []ModelOption {
	opts := make([]ModelOption, 0, len(l.Models))
	for _, m := range l.Models {
		name := m.DisplayName
		if name == "" {
			name = m.ID
		}
		opts = append(opts, ModelOption{ID: m.ID, Name: name, Default: m.Default || m.ID == l.Default})
	}
	return opts
}

// SelectedModel picks the model the picker shows: the conversation's when
// the registry offers it, else the registry's default.
func SelectedModel(l llm.ModelList, conversationModel string) string {
	for _, m := range l.Models {
		if m.ID == conversationModel {
			return m.ID
		}
	}
	return l.Default
}

// StreamURL is where the page follows the conversation's live fragments.
func (p *ConversationPage) StreamURL() string {
	return "/conversations/" + p.Conv.ID + "/stream?after=" + strconv.FormatInt(p.Conv.Seq, 10)
}

func (p *ConversationPage) base() string { return "/conversations/" + p.Conv.ID }

// turnRunning reports whether a turn of the conversation is running: its
// Undo, Redo and history wait for it (the page's script enables them when
// the turn ends), since going back under a turn that is still changing the
// strategy would leave a half-built one.
func (p *ConversationPage) turnRunning() bool {
	_, running := p.Conv.Running()
	return running
}

// maxShownJSON bounds the JSON shown in one tool-call card; results are
// bounded when recorded, but a page of many calls should stay light.
const maxShownJSON = 8 << 10

// prettyJSON indents raw JSON for display and cuts it at maxShownJSON.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	s := string(raw)
	if json.Indent(&buf, raw, "", "  ") == nil {
		s = buf.String()
	}
	if len(s) > maxShownJSON {
		cut := maxShownJSON
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "\n… (cut; " + strconv.Itoa(len(s)) + " bytes in all)"
	}
	return s
}

// formatMs shows a duration given in milliseconds: "850 ms", "2.4 s",
// "3 min 05 s".
func formatMs(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
	}
	s := ms / 1000
	return fmt.Sprintf("%d min %02d s", s/60, s%60)
}

// elapsedMs is the time from start to now in milliseconds, never negative.
func elapsedMs(start, now time.Time) int64 {
	if start.IsZero() || now.Before(start) {
		return 0
	}
	return now.Sub(start).Milliseconds()
}

// formatElapsed shows a running timer the way the page's script ticks it:
// whole seconds.
func formatElapsed(ms int64) string {
	s := ms / 1000
	if s < 60 {
		return strconv.FormatInt(s, 10) + " s"
	}
	return fmt.Sprintf("%d min %02d s", s/60, s%60)
}

func itoa(n int) string     { return strconv.Itoa(n) }
func i64toa(n int64) string { return strconv.FormatInt(n, 10) }

// usageText is a turn's token usage in words.
func usageText(t *view.Turn) string {
	u := t.Usage
	if u.TotalTokens == 0 && t.Model == "offline" {
		// The offline planner runs no model: zero is the truth, said plainly.
		return "No model tokens (offline planner)"
	}
	return fmt.Sprintf("Tokens: %d prompt · %d completion · %d total", u.PromptTokens, u.CompletionTokens, u.TotalTokens)
}

// unixMs is a time as milliseconds since the epoch, for the page's timers.
func unixMs(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// turnStatusText says how a turn ended.
func turnStatusText(t *view.Turn) string {
	switch t.Status {
	case event.TurnRunning:
		return "Working…"
	case event.TurnCompleted:
		return "Done in " + formatMs(t.DurationMs)
	case event.TurnCancelled:
		return "Stopped after " + formatMs(t.DurationMs)
	case event.TurnFailed:
		return "Failed after " + formatMs(t.DurationMs)
	case event.TurnInterrupted:
		return "Interrupted (the server stopped during this turn)"
	}
	return string(t.Status)
}

// turnEndError is the error a failed or interrupted turn's footer shows:
// the turn_end error unless an error event already said the same in place.
// A stopped turn is not an error; its status says it was stopped.
func turnEndError(t *view.Turn) string {
	if t.Error == "" || t.Status != event.TurnFailed && t.Status != event.TurnInterrupted {
		return ""
	}
	for _, it := range t.Items {
		if te, ok := it.(*view.TurnError); ok && te.Message == t.Error {
			return ""
		}
	}
	return t.Error
}

// buildRequestText is how the page shows the message of a turn started by
// Build this plan.
func buildRequestText(h *view.Handoff) string {
	if h == nil || h.Goal == "" {
		return "Build this plan"
	}
	return "Build this plan: " + h.Goal
}

// maxAskedRunes bounds what a folded turn's summary line quotes of the
// user's message; the line is cut further to its width by the style sheet.
const maxAskedRunes = 160

// turnAsked is what a folded turn's summary line says was asked: the
// user's message, or the plan a Build this plan turn was given, on one
// line and cut at maxAskedRunes.
func turnAsked(p *ConversationPage, t *view.Turn) string {
	s := t.UserText
	if t.HandoffID != "" {
		s = buildRequestText(p.Conv.Handoff(t.HandoffID))
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(no message)"
	}
	if utf8.RuneCountInString(s) <= maxAskedRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxAskedRunes-1]) + "…"
}

// turnFacts is the rest of a folded turn's summary line: how many tool
// calls it made (and how many failed), and how it ended.
func turnFacts(t *view.Turn) string {
	calls, failed := 0, 0
	for _, it := range t.Items {
		if tc, ok := it.(*view.ToolCall); ok {
			calls++
			if tc.Status == view.CallError {
				failed++
			}
		}
	}
	var b strings.Builder
	switch calls {
	case 0:
		b.WriteString("no tool calls")
	case 1:
		b.WriteString("1 tool call")
	default:
		b.WriteString(strconv.Itoa(calls) + " tool calls")
	}
	if failed > 0 {
		b.WriteString(" (" + strconv.Itoa(failed) + " failed)")
	}
	if t.StrategyChanges > 0 {
		if t.Result != nil {
			b.WriteString(" · result " + stepCountText(*t.Result))
		} else {
			b.WriteString(" · no one result yet")
		}
	}
	b.WriteString(" · ")
	b.WriteString(turnStatusText(t))
	return b.String()
}

// artifactKindName says what kind of artifact a folded title line stands
// for.
func artifactKindName(k event.ArtifactKind) string {
	switch k {
	case event.ArtifactPlanning:
		return "planning notes"
	case event.ArtifactDelegationDraft:
		return "delegation plan"
	}
	return string(k)
}

// handoffsShown picks an artifact's handoffs (newest first) to draw: the
// newest alone, which belongs to the plan as it reads now (Build this
// plan, or what became of it). The earlier ones asked to build earlier
// versions of the plan; drawn under the current one, "Approved" or
// "Superseded" would speak of a plan no longer shown, so they are only
// counted, by what became of them, on one line (earlierText).
func handoffsShown(hs []*view.Handoff) (shown []*view.Handoff, earlier []*view.Handoff) {
	if len(hs) == 0 {
		return nil, nil
	}
	return hs[:1], hs[1:]
}

// earlierText is the line under a plan that counts its earlier versions'
// build requests: "1 earlier version of this plan was built; 2 were
// superseded."
func earlierText(hs []*view.Handoff) string {
	built, superseded := 0, 0
	for _, h := range hs {
		if h.Status == view.HandoffAccepted {
			built++
		} else {
			superseded++
		}
	}
	versions := func(n int) string {
		if n == 1 {
			return "1 earlier version of this plan was"
		}
		return strconv.Itoa(n) + " earlier versions of this plan were"
	}
	switch {
	case superseded == 0:
		return versions(built) + " built."
	case built == 0:
		return versions(superseded) + " superseded."
	}
	were := " were superseded."
	if superseded == 1 {
		were = " was superseded."
	}
	return versions(built) + " built; " + strconv.Itoa(superseded) + were
}

// foldedArtifacts counts the artifacts the plan panel keeps behind its
// "Earlier notes and plans" line.
func foldedArtifacts(c *view.Conversation) int {
	n := 0
	for _, a := range c.Artifacts {
		if c.ArtifactFolded(a) {
			n++
		}
	}
	return n
}

// callKinds names what a tool call did, singular and plural, by tool
// name; a tool not listed counts as a "tool call".
var callKinds = map[string][2]string{
	"list_sites":                 {"catalog look-up", "catalog look-ups"},
	"list_record_types":          {"catalog look-up", "catalog look-ups"},
	"search_for_searches":        {"catalog look-up", "catalog look-ups"},
	"get_search_parameters":      {"catalog look-up", "catalog look-ups"},
	"lookup_genes":               {"gene look-up", "gene look-ups"},
	"get_strategy":               {"strategy read", "strategy reads"},
	"list_steps":                 {"strategy read", "strategy reads"},
	"save_planning_artifact":     {"note saved", "notes saved"},
	"save_delegation_draft":      {"plan drafted", "plans drafted"},
	"list_artifacts":             {"note read", "notes read"},
	"get_artifact":               {"note read", "notes read"},
	"request_executor_build":     {"build requested", "builds requested"},
	"set_conversation_title":     {"title set", "titles set"},
	"create_step":                {"step created", "steps created"},
	"transform_step":             {"step transformed", "steps transformed"},
	"combine_steps":              {"combination", "combinations"},
	"update_step":                {"step updated", "steps updated"},
	"delete_step":                {"step deleted", "steps deleted"},
	"validate_strategy":          {"validation", "validations"},
	"get_result_count":           {"count", "counts"},
	"undo_last_change":           {"undo", "undos"},
	"rename_strategy":            {"strategy renamed", "strategy renames"},
	"delegate_strategy_subtasks": {"delegation to sub-agents", "delegations to sub-agents"},
}

type callFacts struct{ text, status string }

// groupFacts is a call group's summary line: "12 catalog look-ups · 3
// steps created", then how many failed and whether one is running.
func groupFacts(g *view.CallGroup) callFacts {
	var order []string
	count := map[string]int{}
	plural := map[string]string{}
	failed, running := 0, false
	for _, tc := range g.Calls {
		k, ok := callKinds[tc.Name]
		if !ok {
			k = [2]string{"tool call", "tool calls"}
		}
		if count[k[0]] == 0 {
			order = append(order, k[0])
			plural[k[0]] = k[1]
		}
		count[k[0]]++
		switch tc.Status {
		case view.CallError:
			failed++
		case view.CallRunning:
			running = true
		}
	}
	parts := make([]string, 0, len(order)+2)
	for _, k := range order {
		if n := count[k]; n == 1 {
			parts = append(parts, "1 "+k)
		} else {
			parts = append(parts, strconv.Itoa(n)+" "+plural[k])
		}
	}
	f := callFacts{status: "ok"}
	if failed > 0 {
		parts = append(parts, strconv.Itoa(failed)+" failed")
		f.status = "error"
	}
	if running {
		parts = append(parts, "running…")
		f.status = "running"
	}
	f.text = strings.Join(parts, " · ")
	return f
}

// recoveryText says how the turn the recovery actions follow ended.
func recoveryText(t *view.Turn) string {
	switch t.Status {
	case event.TurnCancelled:
		return "Stopped."
	case event.TurnInterrupted:
		return "Interrupted."
	}
	return "Failed."
}

// questionModel is the model an answer to a question is sent to: the
// asking turn's.
func questionModel(p *ConversationPage, q *view.Question) string {
	if q.Model != "" {
		return q.Model
	}
	return p.Model
}

// turnModel is the model to send a turn's message again with: the turn's,
// else the picker's.
func turnModel(p *ConversationPage, t *view.Turn) string {
	if t.Model != "" {
		return t.Model
	}
	return p.Model
}

// shortText is a message on one line, cut to 60 characters.
func shortText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// suggestions are the example requests an empty conversation offers; the
// offline planner answers each.
var suggestions = []string{
	"Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14",
	"Which searches find genes by GO term?",
}

// strategyKeptText says that replacing a turn that changed the strategy
// keeps its changes, and how to revert them.
func strategyKeptText(t *view.Turn) string {
	n := "a change"
	if t.StrategyChanges > 1 {
		n = strconv.Itoa(t.StrategyChanges) + " changes"
	}
	return "This turn made " + n + " to the strategy; editing or regenerating keeps them (Undo in the strategy panel reverts them)."
}
