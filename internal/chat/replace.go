package chat

import (
	"context"
	"encoding/json"
	"strings"

	"strategist/internal/agent"
	"strategist/internal/store"
)

// Replacing a turn: the researcher edits the latest message and sends it
// again, or asks for the latest answer again (regenerate). Either starts a
// new turn whose request names the turn it replaces (TurnRequest.Replaces).
// Nothing is deleted: the replaced turn's events and messages stay, its
// successor's turn_start names it (event.TurnStart.ReplacesTurnID) so
// pages show it as replaced, and the new turn's user message records it in
// its data (replacesKey), so the history of this and every later turn
// leaves the replaced turn's messages out. Only the conversation's latest
// turn can be replaced, and only once it has ended. That is checked before
// the start commits: two requests to replace the same turn at once start
// one turn, since the running-turn rule refuses the second (409), unless
// the first's turn has already ended by the time the second commits.
//
// What the replaced turn did to the strategy stays: a turn that changed the
// strategy left versions that the researcher may have built on since, and
// the strategy panel's Undo reverts them one at a time. The page says so
// where it offers Edit and Regenerate.

// replacesKey is the field of a user message's data that names the turn
// the message's turn replaces.
const replacesKey = "replacesTurnId"

// ReplaceError says why a turn cannot be replaced (the API's 422).
type ReplaceError struct{ Message string }

func (e *ReplaceError) Error() string { return "chat: replace: " + e.Message }

// replacement checks that req.Replaces names the conversation's latest
// turn, which has ended, and completes the request from it: an empty
// message is the replaced turn's message again (regenerate), an empty mode
// its mode. It returns the completed request and the new user message's
// data. Another user's conversation is ErrNotFound.
func (s *Service) replacement(ctx context.Context, req TurnRequest) (TurnRequest, json.RawMessage, error) {
	// The turns of another user's conversation read as none: ownership
	// first.
	if _, err := s.cfg.Store.Conversation(ctx, req.UserID, req.ConversationID); err != nil {
		return req, nil, err
	}
	turns, err := s.cfg.Store.Turns(ctx, req.UserID, req.ConversationID)
	if err != nil {
		return req, nil, err
	}
	if len(turns) == 0 {
		return req, nil, &ReplaceError{Message: "this conversation has no message to edit and no answer to regenerate yet"}
	}
	last := turns[len(turns)-1]
	if last.Status == store.TurnRunning {
		return req, nil, ErrTurnRunning
	}
	if !strings.EqualFold(last.ID, req.Replaces) {
		return req, nil, &ReplaceError{Message: "only the latest turn can be edited or regenerated; turn " + req.Replaces + " is not the latest of this conversation"}
	}
	req.Replaces = last.ID
	if req.Mode == "" {
		req.Mode = last.Mode
	}
	var data json.RawMessage
	if req.Message == "" {
		msgs, err := s.cfg.Store.Messages(ctx, req.UserID, req.ConversationID)
		if err != nil {
			return req, nil, err
		}
		for _, m := range msgs {
			if m.TurnID != nil && *m.TurnID == last.ID && m.Role == agent.StoredUser {
				// A build message keeps its data (the plan it builds).
				req.Message, data = m.Content, m.Data
				break
			}
		}
		if strings.TrimSpace(req.Message) == "" {
			return req, nil, &ReplaceError{Message: "the latest turn has no message to send again"}
		}
	}
	fields := map[string]any{}
	if len(data) > 0 {
		_ = json.Unmarshal(data, &fields)
	}
	fields[replacesKey] = last.ID
	data, err = json.Marshal(fields)
	if err != nil {
		return req, nil, err
	}
	return req, data, nil
}

// withoutReplaced leaves out the messages of replaced turns: those a later
// user message names in its data.
func withoutReplaced(msgs []store.Message) []store.Message {
	replaced := map[string]bool{}
	for _, m := range msgs {
		if m.Role != agent.StoredUser || len(m.Data) == 0 {
			continue
		}
		var d map[string]json.RawMessage
		if json.Unmarshal(m.Data, &d) != nil {
			continue
		}
		var id string
		if json.Unmarshal(d[replacesKey], &id) == nil && id != "" {
			replaced[id] = true
		}
	}
	if len(replaced) == 0 {
		return msgs
	}
	out := make([]store.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.TurnID != nil && replaced[*m.TurnID] {
			continue
		}
		out = append(out, m)
	}
	return out
}
