package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/tool"
)

// StoredRole is the role of a stored message (the messages table's role
// column, whose vocabulary the store owns).
type StoredRole = event.MessageRole

// The roles of stored messages.
const (
	StoredUser      = event.RoleUser
	StoredAssistant = event.RoleAssistant
	StoredTool      = event.RoleTool
	// StoredSummary is a compaction summary: it stands in for every message
	// up to and including the one its data names (coversThrough).
	StoredSummary = event.RoleSummary
)

// StoredMessage is one row of the messages table as the orchestrator reads
// and writes it: role, visible content, and the structured parts in Data.
type StoredMessage struct {
	ID      string
	Role    StoredRole
	Content string
	Data    json.RawMessage
}

// storedData is the JSON of StoredMessage.Data.
type storedData struct {
	ToolCalls     []llm.ToolCall   `json:"toolCalls,omitempty"`
	ToolResults   []llm.ToolResult `json:"toolResults,omitempty"`
	Raw           *llm.Raw         `json:"raw,omitempty"`
	CoversThrough string           `json:"coversThrough,omitempty"`
	// RunResults are a tool message's results as its run fed them to the
	// model (RoundEnd.Results): a resumed run of the same turn goes on
	// from these; later turns read the digests of ToolResults.
	RunResults []llm.ToolResult `json:"runResults,omitempty"`
}

// Stored converts a message of RunEnd.Messages into the row to insert (its
// ID is left for the database to assign). Data is nil for plain text.
func Stored(m llm.Message) (StoredMessage, error) {
	s := StoredMessage{Role: StoredRole(m.Role), Content: m.Text}
	switch m.Role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
	default:
		return StoredMessage{}, fmt.Errorf("agent: store message: unknown role %q", m.Role)
	}
	if len(m.ToolCalls) == 0 && len(m.ToolResults) == 0 && m.Raw == nil {
		return s, nil
	}
	data, err := json.Marshal(storedData{ToolCalls: m.ToolCalls, ToolResults: m.ToolResults, Raw: m.Raw})
	if err != nil {
		return StoredMessage{}, fmt.Errorf("agent: store message: %w", err)
	}
	s.Data = data
	return s, nil
}

// StoredRound converts the messages of a round (RoundEnd.Messages) into rows
// as Stored does, its tool message also keeping results, the round's
// results as the run saw them (RoundEnd.Results), for a resumed run of the
// same turn.
func StoredRound(msgs []llm.Message, results []llm.ToolResult) ([]StoredMessage, error) {
	out := make([]StoredMessage, 0, len(msgs))
	for _, m := range msgs {
		if m.Role != llm.RoleTool || len(results) != len(m.ToolResults) {
			s, err := Stored(m)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			continue
		}
		data, err := json.Marshal(storedData{ToolResults: m.ToolResults, RunResults: results})
		if err != nil {
			return nil, fmt.Errorf("agent: store message: %w", err)
		}
		out = append(out, StoredMessage{Role: StoredTool, Data: data})
	}
	return out, nil
}

// History is a conversation as a model sees it before a turn: the earlier
// messages, and the user message that starts the turn, apart, so that a run
// sends it exactly once.
type History struct {
	Messages []llm.Message
	// IDs holds, for each message, the id of the stored message whose place
	// it takes (for a summary: the last message it covers), so a new summary
	// can say what it covers.
	IDs []string
	// Current is the text of the user message starting the turn.
	Current   string
	CurrentID string
	// Continue holds what earlier runs of the turn persisted after the
	// current message, round by round (Input.Continue): a resumed turn
	// goes on from them, with their tool results as those runs saw them
	// (StoredRound), not the digests later turns read. A final answer
	// among them is dropped (its turn did not end): the model is asked
	// again.
	Continue []llm.Message
}

// ErrCurrentMissing is returned by BuildHistory when the current message is
// not the last user message of the stored ones.
var ErrCurrentMissing = errors.New("agent: the current user message is not the last stored message")

// summaryPrefix introduces a summary replayed as a user message.
const summaryPrefix = "Summary of the earlier conversation (older messages were condensed):\n\n"

// BuildHistory turns a conversation's stored messages (oldest first, the
// turn's own user message, currentID, last but for the rounds an earlier
// run of the turn persisted after it) into a History:
//   - the latest summary replaces every message it covers;
//   - the current message is taken out of the history and returned apart,
//     and what follows it is the run's Continue;
//   - a call left without a result (the process stopped mid-call) gets an
//     INTERRUPTED result, and results without their call are dropped, so
//     that engines accept the history;
//   - empty assistant messages are dropped.
func BuildHistory(stored []StoredMessage, currentID string) (*History, error) {
	last := len(stored) - 1
	for last >= 0 && stored[last].ID != currentID && stored[last].Role != StoredUser {
		last-- // the rounds an earlier run of the turn persisted, or its summary
	}
	if last < 0 || stored[last].ID != currentID || stored[last].Role != StoredUser {
		return nil, fmt.Errorf("agent: build history: %w", ErrCurrentMissing)
	}
	prior := stored[:last]
	var cont []llm.Message
	var contIDs []string
	for _, s := range stored[last+1:] {
		if s.Role == StoredSummary {
			continue // the turn's own compaction: it covers messages before the current one
		}
		m, err := decodeMessage(s)
		if err != nil {
			return nil, err
		}
		if m.Role == llm.RoleTool {
			// decodeMessage read the data well formed.
			if d, _ := decodeData(s); len(d.RunResults) == len(m.ToolResults) {
				m.ToolResults = d.RunResults
			}
		}
		cont, contIDs = append(cont, m), append(contIDs, s.ID)
	}
	cont, _ = repair(cont, contIDs)
	if n := len(cont); n > 0 && cont[n-1].Role == llm.RoleAssistant && len(cont[n-1].ToolCalls) == 0 {
		cont = cont[:n-1]
	}

	// The latest summary whose covered message is present wins.
	start, summaryAt := 0, -1
	for i := len(prior) - 1; i >= 0 && summaryAt < 0; i-- {
		if prior[i].Role != StoredSummary {
			continue
		}
		d, err := decodeData(prior[i])
		if err != nil {
			return nil, err
		}
		for j := range prior {
			if prior[j].ID == d.CoversThrough && prior[j].Role != StoredSummary {
				summaryAt, start = i, j+1
				break
			}
		}
	}

	h := &History{Current: stored[last].Content, CurrentID: currentID, Continue: cont}
	if summaryAt >= 0 {
		d, _ := decodeData(prior[summaryAt])
		h.Messages = append(h.Messages, llm.Message{Role: llm.RoleUser, Text: summaryPrefix + prior[summaryAt].Content})
		h.IDs = append(h.IDs, d.CoversThrough)
	}
	for _, s := range prior[start:] {
		if s.Role == StoredSummary {
			continue
		}
		m, err := decodeMessage(s)
		if err != nil {
			return nil, err
		}
		h.Messages = append(h.Messages, m)
		h.IDs = append(h.IDs, s.ID)
	}
	h.Messages, h.IDs = repair(h.Messages, h.IDs)
	return h, nil
}

func decodeData(s StoredMessage) (storedData, error) {
	var d storedData
	if len(s.Data) == 0 || string(s.Data) == "null" {
		return d, nil
	}
	if err := json.Unmarshal(s.Data, &d); err != nil {
		return d, fmt.Errorf("agent: build history: message %s: %w", s.ID, err)
	}
	return d, nil
}

func decodeMessage(s StoredMessage) (llm.Message, error) {
	d, err := decodeData(s)
	if err != nil {
		return llm.Message{}, err
	}
	switch s.Role {
	case StoredUser:
		return llm.Message{Role: llm.RoleUser, Text: s.Content}, nil
	case StoredAssistant:
		return llm.Message{Role: llm.RoleAssistant, Text: s.Content, ToolCalls: d.ToolCalls, Raw: d.Raw}, nil
	case StoredTool:
		return llm.Message{Role: llm.RoleTool, ToolResults: d.ToolResults}, nil
	default:
		return llm.Message{}, fmt.Errorf("agent: build history: message %s: unknown role %q", s.ID, s.Role)
	}
}

// repair makes the history well formed for engines: every tool call is
// answered by the tool message that follows it, no result answers nothing,
// and no assistant message is empty.
func repair(msgs []llm.Message, ids []string) ([]llm.Message, []string) {
	outM := make([]llm.Message, 0, len(msgs))
	outI := make([]string, 0, len(ids))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case llm.RoleTool:
			continue // answered nothing: its call was dropped or summarised
		case llm.RoleAssistant:
			if m.Text == "" && len(m.ToolCalls) == 0 {
				continue
			}
		}
		outM, outI = append(outM, m), append(outI, ids[i])
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		var got map[string]llm.ToolResult
		if i+1 < len(msgs) && msgs[i+1].Role == llm.RoleTool {
			got = make(map[string]llm.ToolResult, len(msgs[i+1].ToolResults))
			for _, r := range msgs[i+1].ToolResults {
				got[r.CallID] = r
			}
			i++
		}
		results := make([]llm.ToolResult, len(m.ToolCalls))
		for j, c := range m.ToolCalls {
			r, ok := got[c.ID]
			if !ok {
				r = llm.ToolResult{CallID: c.ID, Name: c.Name, IsError: true, Content: renderFailure(&ToolFailure{
					Code: tool.CodeInterrupted, Message: "this call was interrupted; its result is unknown"})}
			}
			results[j] = r
		}
		id := ids[i]
		outM, outI = append(outM, llm.Message{Role: llm.RoleTool, ToolResults: results}), append(outI, id)
	}
	return outM, outI
}
