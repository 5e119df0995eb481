package eventlog

import (
	"bytes"
	"fmt"

	"strategist/internal/event"
	"strategist/internal/store"
)

// EncodeRow is e as the row for conversationID's log: its wire name and
// payload (event.Encode), the payload scrubbed of what jsonb refuses
// (scrubJSON), the turn id checked to be a uuid. It is the one encoder of
// event rows: Append, InTransaction and the orchestrator's own
// transactions (a turn's start and end, a dead process's turns) use it.
func EncodeRow(conversationID string, e event.Event) (store.NewEvent, error) {
	if t := e.Turn(); t != "" && !isUUID(t) {
		return store.NewEvent{}, fmt.Errorf("turn id %q is not a uuid", t)
	}
	name, payload, err := event.Encode(e)
	if err != nil {
		return store.NewEvent{}, err
	}
	return store.NewEvent{ConversationID: conversationID, TurnID: e.Turn(), Type: name, Payload: scrubJSON(payload)}, nil
}

// FromRow is the record of a stored event row. Store methods that append
// events inside their own transaction (a turn's start) publish the rows they
// get back through it once committed.
func FromRow(r store.EventRow) event.Record {
	return event.Record{
		ConversationID: r.ConversationID,
		Seq:            r.Seq,
		TurnID:         r.TurnID,
		Type:           r.Type,
		Payload:        r.Payload,
		CreatedAt:      r.CreatedAt,
	}
}

// scrubJSON makes an encoded payload storable as jsonb, which refuses two
// things JSON allows: the escape \u0000 and UTF-16 surrogate escapes that
// do not form a pair (a model's raw tool arguments can hold either). Both
// become \ufffd, so that one odd character in a model's output does not
// fail the batch of every turn writing at the same moment. An escaped
// backslash followed by "u0000" is left alone.
func scrubJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u`)) {
		return b
	}
	var out []byte // nil until something changes
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			if out != nil {
				out = append(out, b[i])
			}
			continue
		}
		if b[i+1] != 'u' {
			// Another escape: copy it whole.
			if out != nil {
				out = append(out, b[i], b[i+1])
			}
			i++
			continue
		}
		u, ok := hex4(b, i+2)
		length, bad := 6, false
		switch {
		case !ok:
		case u == 0 || 0xDC00 <= u && u <= 0xDFFF:
			bad = true
		case 0xD800 <= u && u <= 0xDBFF:
			if lo, ok := hex4(b, i+8); ok && i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' && 0xDC00 <= lo && lo <= 0xDFFF {
				length = 12 // a proper pair
			} else {
				bad = true
			}
		}
		if bad && out == nil {
			out = append(make([]byte, 0, len(b)), b[:i]...)
		}
		end := min(i+length, len(b))
		if out != nil {
			if bad {
				out = append(out, `\ufffd`...)
			} else {
				out = append(out, b[i:end]...)
			}
		}
		i = end - 1
	}
	if out == nil {
		return b
	}
	return out
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (uint16, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var u uint16
	for _, c := range b[i : i+4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		u = u<<4 | uint16(d)
	}
	return u, true
}

// isUUID reports whether s is a UUID in its text form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
