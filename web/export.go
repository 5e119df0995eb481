package web

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"strategist/internal/strategy"
	"strategist/web/view"
)

// Export is a conversation as a researcher keeps it outside Strategist: what
// was said, the delegation plan, and the strategy with its counts and where
// they come from. It is built from the same fold of the event log as the
// page (view.Conversation), so it says what the page says, and is written as
// JSON (its fields) or as Markdown (Markdown).
type Export struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	SiteID string `json:"siteId"`
	// AsOfEvent is the last event of the log the export includes.
	AsOfEvent  int64     `json:"asOfEvent"`
	ExportedAt time.Time `json:"exportedAt"`
	// Messages are the user's and the assistant's messages in order.
	Messages []ExportMessage `json:"messages"`
	// Plan is the latest delegation plan the executor ran, if any.
	Plan *ExportPlan `json:"plan"`
	// Strategy is the strategy as of AsOfEvent, with every step's search,
	// parameters, count and the count's provenance; nil before any step.
	Strategy *strategy.Snapshot `json:"strategy"`
}

// ExportMessage is one message of an export.
type ExportMessage struct {
	TurnID string `json:"turnId"`
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Text is the message as written; an assistant's is markdown. A build
	// turn's user message is the approval ("Build this plan: <goal>").
	Text string `json:"text"`
	// Build is set on the message that approved a plan (Build this plan);
	// BuildRequest is then what the executor was given.
	Build        bool   `json:"build,omitempty"`
	BuildRequest string `json:"buildRequest,omitempty"`
	// Replaced is set on the messages of a turn that a later turn replaced
	// (the researcher edited its message or asked for its answer again).
	Replaced bool `json:"replaced,omitempty"`
}

// ExportPlan is a delegation plan: its goal and nodes in dependency order.
type ExportPlan struct {
	Goal  string           `json:"goal"`
	Nodes []ExportPlanNode `json:"nodes"`
}

// ExportPlanNode is one node of a delegation plan and how it ended.
type ExportPlanNode struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Label      string   `json:"label"`
	Operator   string   `json:"operator,omitempty"`
	DependsOn  []string `json:"dependsOn"`
	Status     string   `json:"status"`
	RootStepID string   `json:"rootStepId,omitempty"`
}

// NewExport describes a folded conversation for export at time now.
func NewExport(c *view.Conversation, now time.Time) Export {
	e := Export{ID: c.ID, Title: c.Title, SiteID: c.SiteID, AsOfEvent: c.Seq, ExportedAt: now.UTC(), Messages: []ExportMessage{}}
	for _, t := range c.Turns {
		first := len(e.Messages)
		switch {
		case t.HandoffID != "":
			e.Messages = append(e.Messages, ExportMessage{TurnID: t.ID, Role: "user", Text: buildRequestText(c.Handoff(t.HandoffID)),
				Build: true, BuildRequest: t.UserText})
		case t.UserText != "":
			e.Messages = append(e.Messages, ExportMessage{TurnID: t.ID, Role: "user", Text: t.UserText})
		}
		for _, it := range t.Items {
			if m, ok := it.(*view.Message); ok && m.Text != "" {
				e.Messages = append(e.Messages, ExportMessage{TurnID: t.ID, Role: "assistant", Text: m.Text})
			}
		}
		for i := first; i < len(e.Messages) && t.ReplacedBy != ""; i++ {
			e.Messages[i].Replaced = true
		}
	}
	if d := c.Delegation; d != nil {
		p := &ExportPlan{Goal: d.Goal, Nodes: []ExportPlanNode{}}
		for _, n := range d.Nodes {
			p.Nodes = append(p.Nodes, ExportPlanNode{ID: n.ID, Kind: n.Kind, Label: n.Label, Operator: n.Operator,
				DependsOn: append([]string{}, n.DependsOn...), Status: string(n.Status), RootStepID: n.RootStepID})
		}
		e.Plan = p
	}
	if s := c.Strategy; s != nil && len(s.Steps) > 0 {
		e.Strategy = s
	}
	return e
}

// Markdown writes the export as a Markdown document: the conversation's
// messages, the plan, and the strategy as a nested list from its result
// step down, each step with its search, parameters, count and the count's
// source.
func (e Export) Markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdLine(e.Title))
	fmt.Fprintf(&b, "Site: %s · exported %s (as of event %d) · conversation %s\n\n",
		e.SiteID, e.ExportedAt.Format("2006-01-02 15:04 UTC"), e.AsOfEvent, e.ID)

	b.WriteString("## Conversation\n\n")
	if len(e.Messages) == 0 {
		b.WriteString("No messages yet.\n\n")
	}
	for _, m := range e.Messages {
		replaced := ""
		if m.Replaced {
			replaced = " (replaced)"
		}
		switch {
		case m.Role == "user":
			b.WriteString("### You" + replaced + "\n\n")
			b.WriteString(mdQuote(m.Text))
		default:
			b.WriteString("### Assistant" + replaced + "\n\n")
			b.WriteString(strings.TrimSpace(m.Text) + "\n\n")
		}
	}

	if e.Plan != nil {
		b.WriteString("## Delegation plan\n\n")
		if e.Plan.Goal != "" {
			fmt.Fprintf(&b, "Goal: %s\n\n", mdLine(e.Plan.Goal))
		}
		for _, n := range e.Plan.Nodes {
			fmt.Fprintf(&b, "- **%s** (%s", n.ID, n.Kind)
			if n.Operator != "" {
				b.WriteString(" " + n.Operator)
			}
			fmt.Fprintf(&b, ") %s — %s", mdLine(n.Label), n.Status)
			if len(n.DependsOn) > 0 {
				b.WriteString(" · after " + strings.Join(n.DependsOn, ", "))
			}
			if n.RootStepID != "" {
				b.WriteString(" · step " + n.RootStepID)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}

	b.WriteString("## Strategy\n\n")
	s := e.Strategy
	if s == nil {
		b.WriteString("No steps yet.\n")
		return []byte(b.String())
	}
	fmt.Fprintf(&b, "%s · %s · record type %s · version %d · %s\n\n", mdLine(s.Name), s.SiteID, s.RecordType, s.Version, plural(len(s.Steps), "step"))
	if root := rootStep(s); root != nil {
		fmt.Fprintf(&b, "Result: **%s** (step %s)\n\n", stepCountText(*root), root.ID)
	} else {
		b.WriteString("Result: not one tree yet.\n\n")
	}
	seen := map[strategy.StepID]bool{}
	for _, id := range s.Roots {
		writeStep(&b, s, id, 0, seen)
	}
	return []byte(b.String())
}

// writeStep writes a step and, indented below it, its inputs.
func writeStep(b *strings.Builder, s *strategy.Snapshot, id strategy.StepID, depth int, seen map[strategy.StepID]bool) {
	st, ok := s.Step(id)
	if !ok || seen[id] {
		return
	}
	seen[id] = true
	pad := strings.Repeat("  ", depth)
	fmt.Fprintf(b, "%s- **%s · %s** — %s", pad, st.ID, mdLine(stepName(st)), st.Kind)
	if st.Kind == strategy.KindCombine {
		fmt.Fprintf(b, " %s", st.Operator)
	}
	if st.SearchName != "" {
		fmt.Fprintf(b, " · search `%s`", st.SearchName)
	}
	fmt.Fprintf(b, " · %s", stepCountText(st))
	if st.CountStatus == strategy.CountOK && st.Count != nil {
		fmt.Fprintf(b, " (count %d)", *st.Count)
	}
	if st.CountMessage != "" {
		fmt.Fprintf(b, " (%s)", mdLine(st.CountMessage))
	}
	b.WriteString("\n")
	if p := st.CountProvenance; p != nil {
		fmt.Fprintf(b, "%s  - count from: %s", pad, mdLine(provenanceText(*p)))
		if p.Release != "" {
			fmt.Fprintf(b, ", release %s", mdLine(p.Release))
		}
		if p.Approximate {
			b.WriteString(" (approximate)")
		}
		if p.Note != "" {
			fmt.Fprintf(b, " — %s", mdLine(p.Note))
		}
		b.WriteString("\n")
	}
	if st.Colocation != nil {
		fmt.Fprintf(b, "%s  - colocation: %+v\n", pad, *st.Colocation)
	}
	names := make([]string, 0, len(st.Parameters))
	for k, v := range st.Parameters {
		if v != "" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(b, "%s  - `%s` = %s\n", pad, k, mdCode(st.Parameters[k]))
	}
	for _, in := range st.Inputs {
		writeStep(b, s, in, depth+1, seen)
	}
}

// mdLine puts text on one line of Markdown.
func mdLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdCode is a value as inline code, with a fence longer than any run of
// backticks inside it.
func mdCode(s string) string {
	s = mdLine(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdQuote is text as a block quote, line by line.
func mdQuote(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n") + "\n\n"
}
