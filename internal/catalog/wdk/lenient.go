package wdk

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// WDK's published JSON schemas do not match what the sites send, and
// deployments differ from the pinned source, so the wire structs decode
// leniently: a field of the "wrong" JSON kind becomes its closest value
// instead of failing the whole response. Unknown keys are ignored.

// text is a string that also accepts numbers, booleans (their literal text),
// null (""), and objects or arrays (their compact JSON).
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*t = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(s)
	case b[0] == '{' || b[0] == '[':
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		*t = text(buf.String())
	default:
		*t = text(b)
	}
	return nil
}

// texts is a list of text that also accepts a single value or null; an
// empty list decodes as nil.
type texts []string

func (ts *texts) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		*ts = nil
		return nil
	}
	if b[0] != '[' {
		var t text
		if err := t.UnmarshalJSON(b); err != nil {
			return err
		}
		*ts = texts{string(t)}
		return nil
	}
	var raw []text
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		*ts = nil
		return nil
	}
	out := make(texts, len(raw))
	for i, r := range raw {
		out[i] = string(r)
	}
	*ts = out
	return nil
}

// names is a list of names given either as strings or as objects with a
// "name" key (WDK lists attributes both ways).
type names []string

func (ns *names) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		*ns = nil
		return nil //nolint:nilerr // a non-list is treated as no names
	}
	out := make(names, 0, len(raw))
	for _, r := range raw {
		var obj struct {
			Name text `json:"name"`
		}
		if json.Unmarshal(r, &obj) == nil && obj.Name != "" {
			out = append(out, string(obj.Name))
			continue
		}
		var t text
		if t.UnmarshalJSON(r) == nil && t != "" && !strings.HasPrefix(string(t), "{") {
			out = append(out, string(t))
		}
	}
	*ns = out
	return nil
}

// optInt is an integer that may be absent, null, a number (also with a
// fraction, truncated) or a numeric string.
type optInt struct {
	V  int64
	OK bool
}

func (o *optInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	*o = optInt{}
	if s == "" || s == "null" {
		return nil
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*o = optInt{V: v, OK: true}
		return nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		*o = optInt{V: int64(f), OK: true}
	}
	return nil
}

// ptr returns the value as a pointer, nil when absent.
func (o optInt) ptr() *int64 {
	if !o.OK {
		return nil
	}
	v := o.V
	return &v
}

// optFloat is a number that may be absent, null or a numeric string.
type optFloat struct {
	V  float64
	OK bool
}

func (o *optFloat) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	*o = optFloat{}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		*o = optFloat{V: f, OK: true}
	}
	return nil
}

func (o optFloat) ptr() *float64 {
	if !o.OK {
		return nil
	}
	v := o.V
	return &v
}

// flag is a boolean that also accepts "true"/"false" strings, numbers and
// null (false).
type flag bool

func (f *flag) UnmarshalJSON(b []byte) error {
	s := strings.ToLower(strings.Trim(string(bytes.TrimSpace(b)), `"`))
	*f = s == "true" || s == "1" || s == "yes"
	return nil
}

// textMap is a string map whose values are text.
type textMap map[string]string

func (m *textMap) UnmarshalJSON(b []byte) error {
	var raw map[string]text
	if err := json.Unmarshal(b, &raw); err != nil {
		*m = nil
		return nil //nolint:nilerr // a non-object is treated as empty
	}
	out := make(textMap, len(raw))
	for k, v := range raw {
		out[k] = string(v)
	}
	*m = out
	return nil
}
