package protocol

import (
	"encoding/json"
	"fmt"
	"strings"

	"strategist/internal/event"
)

// Narrator turns a conversation's events into the text a chat client shows:
// the assistant's words as they stream, and one short line for each step a
// researcher would watch on the page (a tool call ending, the plan waiting,
// the build starting, each sub-agent task ending, an error). It belongs to
// one request.
type Narrator struct {
	// autoBuild words the plan line for a build that starts by itself.
	autoBuild bool
	// streamed marks assistant messages whose text came as deltas.
	streamed map[string]bool
	// labels are the delegation nodes' labels, by node id.
	labels map[string]string
	// wrote is set once anything was written: later paragraphs start
	// with a blank line.
	wrote bool
	// question is the question the turn asked, told when it ends;
	// said is the assistant's text since it was asked.
	question *event.QuestionAsked
	said     strings.Builder
}

// NewNarrator is a narrator for one request; autoBuild words the plan line
// for a build that starts by itself.
func NewNarrator(autoBuild bool) *Narrator {
	return &Narrator{autoBuild: autoBuild, streamed: map[string]bool{}, labels: map[string]string{}}
}

// Text returns what e adds to the answer ("" for nothing).
func (n *Narrator) Text(e event.Event) string {
	switch e := e.(type) {
	case *event.AssistantDelta:
		n.said.WriteString(e.Delta)
		if !n.streamed[e.MessageID] {
			n.streamed[e.MessageID] = true
			return n.Para(e.Delta)
		}
		return e.Delta
	case *event.AssistantMessage:
		if n.streamed[e.MessageID] || strings.TrimSpace(e.Content) == "" {
			return ""
		}
		n.said.WriteString(e.Content)
		return n.Para(e.Content)
	case *event.ToolCallEnd:
		// A call that worked shows in what the assistant says next, but
		// for a list saved, which outlives the conversation; one that
		// failed is worth a line.
		if e.OK && e.Name == "save_gene_list" {
			var l struct {
				Name string `json:"name"`
				Size int    `json:"size"`
			}
			if json.Unmarshal(e.Result, &l) == nil && l.Name != "" {
				return n.line(fmt.Sprintf("Saved the gene list “%s” (%s).", l.Name, event.Genes(l.Size)))
			}
		}
		if e.OK {
			return ""
		}
		msg := "failed"
		if e.Error != nil {
			msg = "failed: " + e.Error.Message
		}
		return n.line("`" + e.Name + "` " + msg)
	case *event.HandoffRequested:
		if n.autoBuild {
			return n.line("Plan ready: " + e.Goal + ". Building it now.")
		}
		return n.line("Plan ready: " + e.Goal + ". Reply **build** to build it.")
	case *event.HandoffAccepted:
		return n.line("Building the plan.")
	case *event.QuestionAsked:
		// The question closes the turn's answer: the planner says it in
		// its own words first.
		n.question = e
		n.said.Reset()
		return ""
	case *event.SubagentPlan:
		tasks := 0
		for _, node := range e.Nodes {
			n.labels[node.ID] = node.Label
			if node.Kind == "task" {
				tasks++
			}
		}
		return n.line(fmt.Sprintf("Sub-agents: %d tasks, %d nodes in all.", tasks, len(e.Nodes)))
	case *event.SubagentTaskEnd:
		label := n.labels[e.NodeID]
		switch {
		case e.Status == event.NodeDone && e.RootStepID != "":
			return n.line(fmt.Sprintf("%s %s: done (step %s)", e.NodeID, label, e.RootStepID))
		case e.Error != "":
			return n.line(fmt.Sprintf("%s %s: %s (%s)", e.NodeID, label, e.Status, e.Error))
		default:
			return n.line(fmt.Sprintf("%s %s: %s", e.NodeID, label, e.Status))
		}
	case *event.ControlsChanged:
		return n.line(e.Summary())
	case *event.RequirementsChecked:
		return n.line(strings.ReplaceAll(e.Summary(), "\n", "\n> "))
	case *event.Error:
		return n.line("Error " + e.Code + ": " + e.Message)
	case *event.TurnEnd:
		if q := n.question; q != nil {
			n.question = nil
			switch {
			case e.Status != event.TurnCompleted:
			case q.Numbered(n.said.String()):
				// The planner's words number the options already.
				return n.line(q.ReplyHint())
			default:
				return n.line(strings.ReplaceAll(q.Summary(), "\n", "\n> "))
			}
		}
		if e.Status != event.TurnCompleted {
			msg := "The turn ended " + string(e.Status)
			if e.Error != "" {
				msg += ": " + e.Error
			}
			return n.line(msg)
		}
	}
	return ""
}

// Para starts a paragraph of assistant text (or the answer's closing line).
func (n *Narrator) Para(s string) string {
	if !n.wrote {
		n.wrote = true
		return s
	}
	return "\n\n" + s
}

// line is one progress line, a paragraph of its own.
func (n *Narrator) line(s string) string { return n.Para("> " + s) }
