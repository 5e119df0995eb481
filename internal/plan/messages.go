package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"strategist/internal/strategy"
)

// The text contracts between the roles. An approved plan reaches the
// executor as a build message (WriteBuildMessage, ReadBuildMessage); each
// task reaches its sub-agent as a task message (TaskMessage.String,
// ReadTaskMessage). The writers are the only ones, and every reader reads
// through these functions, so the prompts that describe the messages and
// the engines that read them cannot drift apart.

// BuildPrefix starts the user message of an execute turn that builds an
// approved plan; a ```json block with the BuildContext follows.
const BuildPrefix = "Build the approved plan:"

// BuildContext is what an execute turn started from an approved plan
// receives: structured, not prose. It is stored as the turn's user message
// (data) and sent to the executor as a JSON block.
type BuildContext struct {
	HandoffID string `json:"handoffId"`
	Goal      string `json:"goal"`
	// Plan is the approved plan in its written form (Plan.Tree).
	Plan      json.RawMessage   `json:"plan"`
	Artifacts []ArtifactSummary `json:"planningArtifacts"`
}

// ArtifactSummary is a planning artifact as the executor sees it.
type ArtifactSummary struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Summary     string          `json:"summaryMarkdown"`
	Assumptions json.RawMessage `json:"assumptions,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// WriteBuildMessage writes the user message an approved plan starts its
// execute turn with: content is BuildPrefix and the context as an indented
// ```json block (what the model reads), data is {"build": bc} (what is
// stored with the message).
func WriteBuildMessage(bc BuildContext) (content string, data json.RawMessage, err error) {
	if bc.Artifacts == nil {
		bc.Artifacts = []ArtifactSummary{}
	}
	data, err = json.Marshal(map[string]any{"build": bc})
	if err != nil {
		return "", nil, fmt.Errorf("plan: encode build context: %w", err)
	}
	pretty, err := json.MarshalIndent(bc, "", "  ")
	if err != nil {
		return "", nil, fmt.Errorf("plan: encode build context: %w", err)
	}
	return BuildPrefix + "\n```json\n" + string(pretty) + "\n```", data, nil
}

// ReadBuildMessage reads the approved plan from an execute turn's user
// message: ok is false when the message does not start with BuildPrefix,
// has no JSON block, or its plan is not a plan tree. It does not validate
// the plan (the planner did; delegate_strategy_subtasks does again).
func ReadBuildMessage(user string) (bc BuildContext, tree *TreeNode, ok bool) {
	if !strings.HasPrefix(strings.TrimSpace(user), BuildPrefix) {
		return BuildContext{}, nil, false
	}
	raw, ok := fencedJSON(user)
	if !ok {
		return BuildContext{}, nil, false
	}
	if json.Unmarshal(raw, &bc) != nil || len(bc.Plan) == 0 {
		return BuildContext{}, nil, false
	}
	tree, err := DecodeTree(bc.Plan)
	if err != nil {
		return BuildContext{}, nil, false
	}
	return bc, tree, true
}

// fencedJSON returns the JSON value that opens the first ```json block of
// s. The value is decoded rather than cut at the closing fence, so a fence
// inside one of its strings (an artifact's markdown) does not cut it short.
func fencedJSON(s string) (json.RawMessage, bool) {
	_, rest, ok := strings.Cut(s, "```json")
	if !ok {
		return nil, false
	}
	var raw json.RawMessage
	if err := json.NewDecoder(strings.NewReader(rest)).Decode(&raw); err != nil {
		return nil, false
	}
	return raw, true
}

// Dependency is the result of a node a task depends on, as its sub-agent
// is shown it: the root step that node ended with and what that step is.
type Dependency struct {
	NodeID       string            `json:"nodeId"`
	Label        string            `json:"task"`
	StepID       strategy.StepID   `json:"stepId"`
	Kind         string            `json:"kind,omitempty"`
	SearchName   string            `json:"searchName,omitempty"`
	DisplayName  string            `json:"displayName,omitempty"`
	Operator     strategy.Operator `json:"operator,omitempty"`
	Parameters   map[string]string `json:"parameters,omitempty"`
	Count        *int              `json:"count,omitempty"`
	CountStatus  string            `json:"countStatus,omitempty"`
	CountMessage string            `json:"countMessage,omitempty"`
}

// DependencyOf describes the step a node (nodeID, label) ended with.
func DependencyOf(nodeID, label string, s strategy.Step) Dependency {
	d := Dependency{NodeID: nodeID, Label: label, StepID: s.ID, Kind: s.Kind.String(), SearchName: s.SearchName,
		DisplayName: s.DisplayName, Operator: s.Operator, Parameters: s.Parameters,
		CountStatus: s.CountStatus.String(), CountMessage: s.CountMessage}
	if s.CountStatus == strategy.CountOK {
		d.Count = s.Count
	}
	return d
}

// TaskMessage is what a sub-agent is given as its user message: its task
// with hint and context, the overall goal, its input steps and, on a
// retry, what went wrong before.
type TaskMessage struct {
	NodeID string
	Task   string
	Hint   string
	Goal   string
	// Context is the task's context object from the plan (nil when none).
	Context json.RawMessage
	// Inputs are the root steps of the nodes the task depends on.
	Inputs []Dependency
	// Attempt counts from 1; Previous says why the attempt before failed.
	Attempt, MaxAttempts int
	Previous             string
}

// The section titles of a task message.
const (
	sectionHint     = "Hint"
	sectionGoal     = "Overall goal of the strategy"
	sectionContext  = "Context from the plan"
	sectionInputs   = "Input steps"
	sectionPrevious = "Previous attempt"
)

// String renders the message as markdown sections, the structured parts
// (context, inputs) as JSON blocks. The task text comes first after the
// "# Task <node>" heading so that a scripted engine can match on it.
func (m TaskMessage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Task %s\n\n%s\n", m.NodeID, m.Task)
	if m.Hint != "" {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", sectionHint, m.Hint)
	}
	fmt.Fprintf(&b, "\n## %s\n\n%s\n", sectionGoal, m.Goal)
	if len(m.Context) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n```json\n%s\n```\n", sectionContext, indent(m.Context))
	}
	if len(m.Inputs) > 0 {
		raw, _ := Marshal(m.Inputs) // plain strings, maps and numbers
		fmt.Fprintf(&b, "\n## %s (build on these; your root must use every one)\n\n```json\n%s\n```\n", sectionInputs, indent(raw))
	} else {
		fmt.Fprintf(&b, "\n## %s\n\nNone: start from a search.\n", sectionInputs)
	}
	if m.Attempt > 1 {
		fmt.Fprintf(&b, "\n## %s\n\nThis is attempt %d of %d. The previous attempt failed and its steps were removed: %s\n",
			sectionPrevious, m.Attempt, m.MaxAttempts, m.Previous)
	}
	b.WriteString("\n## When done\n\nCall finish_subtask with the id of your root step and a one- or two-sentence summary.\n")
	return b.String()
}

// ReadTaskMessage reads a task message written by TaskMessage.String. ok
// is false when it has no "# Task <node>" heading; Task is then the text
// before the first section. A task or hint whose text holds a line
// starting with "## " is cut there.
func ReadTaskMessage(user string) (m TaskMessage, ok bool) {
	head, rest, _ := strings.Cut(user, "\n## ")
	head = strings.TrimSpace(head)
	if h, body, found := strings.Cut(head, "\n"); found && strings.HasPrefix(h, "# Task ") {
		m.NodeID, head, ok = strings.TrimSpace(strings.TrimPrefix(h, "# Task ")), strings.TrimSpace(body), true
	}
	m.Task = head
	if rest == "" {
		return m, ok
	}
	for _, sec := range strings.Split("## "+rest, "\n## ") {
		title, body, _ := strings.Cut(strings.TrimPrefix(sec, "## "), "\n")
		body = strings.TrimSpace(body)
		switch {
		case title == sectionHint:
			m.Hint = body
		case title == sectionGoal:
			m.Goal = body
		case strings.HasPrefix(title, sectionContext):
			if raw, found := fencedJSON(body); found {
				m.Context = compact(raw)
			}
		case strings.HasPrefix(title, sectionInputs):
			if raw, found := fencedJSON(body); found {
				_ = json.Unmarshal(raw, &m.Inputs) // not a list: no inputs
			}
		case title == sectionPrevious:
			m.Previous = readPrevious(body, &m)
		}
	}
	return m, ok
}

// readPrevious reads the attempt numbers and the previous error of a
// "Previous attempt" section.
func readPrevious(body string, m *TaskMessage) string {
	if _, err := fmt.Sscanf(body, "This is attempt %d of %d.", &m.Attempt, &m.MaxAttempts); err != nil {
		return body
	}
	const removed = "its steps were removed: "
	if _, after, found := strings.Cut(body, removed); found {
		return after
	}
	return body
}

func indent(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}
