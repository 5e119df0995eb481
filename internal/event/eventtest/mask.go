package eventtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"strategist/internal/event"
)

// idKinds names the placeholder of the string fields that hold generated
// ids; the same id gets the same placeholder (<turn1>, <call2>) throughout
// a transcript, so a golden file still shows which events belong together.
var idKinds = map[string]string{
	"turnId":        "turn",
	"executeTurnId": "turn",
	"callId":        "call",
	"messageId":     "msg",
	"userMessageId": "msg",
	"delegationId":  "delegation",
	"handoffId":     "handoff",
	"artifactId":    "artifact",
	"strategyId":    "strategy",
}

// numberPlaceholders are the numeric fields that vary between runs.
var numberPlaceholders = map[string]string{
	"durationMs":       "<ms>",
	"promptTokens":     "<tokens>",
	"completionTokens": "<tokens>",
	"totalTokens":      "<tokens>",
}

var (
	uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	// embeddedUUID finds ids inside longer text (a build request quoting the
	// handoff and artifact ids).
	embeddedUUID = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	timeRE       = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`)
)

// Mask renders a transcript for a golden file: one line per record, its
// event type and its payload (keys sorted) with what varies between runs
// replaced by stable placeholders: generated ids (<turn1>, <call1>, <msg1>,
// <delegation1>, <handoff1>, <artifact1>, <strategy1>, and <id1> for any
// other UUID), timestamps (<time>), durations (<ms>) and token counts
// (<tokens>). Sequence numbers are left out: the line order is the
// sequence.
func Mask(records []event.Record) string {
	m := &masker{names: map[string]string{}, counts: map[string]int{}}
	var b strings.Builder
	for _, r := range records {
		b.WriteString(r.Type)
		dec := json.NewDecoder(bytes.NewReader(r.Payload))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			fmt.Fprintf(&b, " <undecodable payload: %v>\n", err)
			continue
		}
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m.value("", "", v)); err != nil {
			fmt.Fprintf(&b, " <unencodable payload: %v>\n", err)
			continue
		}
		b.WriteByte(' ')
		b.Write(out.Bytes()) // ends with a newline
	}
	return b.String()
}

type masker struct {
	names  map[string]string // id -> placeholder
	counts map[string]int    // kind -> ids named so far
}

func (m *masker) name(kind, id string) string {
	if p, ok := m.names[id]; ok {
		return p
	}
	m.counts[kind]++
	p := fmt.Sprintf("<%s%d>", kind, m.counts[kind])
	m.names[id] = p
	return p
}

// value masks v, found under key in an object that was itself under parent.
func (m *masker) value(parent, key string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		// Sorted keys: placeholders are numbered in a fixed order, not in
		// map order.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			v[k] = m.value(key, k, v[k])
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = m.value(parent, key, x)
		}
		return v
	case json.Number:
		if p, ok := numberPlaceholders[key]; ok {
			return p
		}
		return v
	case string:
		switch {
		case v == "":
			return v
		case idKinds[key] != "":
			return m.name(idKinds[key], v)
		case parent == "artifact" && key == "id":
			return m.name("artifact", v)
		case uuidRE.MatchString(v):
			return m.name("id", v)
		case timeRE.MatchString(v):
			return "<time>"
		}
		return embeddedUUID.ReplaceAllStringFunc(v, func(id string) string { return m.name("id", id) })
	}
	return v
}
