package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// DigestLimits bound a digest of a JSON value.
type DigestLimits struct {
	// MaxBytes is the size a digest aims for; a value within it is returned
	// unchanged.
	MaxBytes int
	// MaxItems is the number of array elements and object keys kept at
	// first; MaxString the number of bytes kept of a string. Both are halved
	// until the digest fits MaxBytes.
	MaxItems  int
	MaxString int
}

// DefaultResultLimits bound the results fed back to the model within a run.
func DefaultResultLimits() DigestLimits {
	return DigestLimits{MaxBytes: 32 << 10, MaxItems: 100, MaxString: 4000}
}

// DefaultHistoryLimits bound the results replayed in later turns; the full
// result stays in the event log.
func DefaultHistoryLimits() DigestLimits {
	return DigestLimits{MaxBytes: 2 << 10, MaxItems: 10, MaxString: 300}
}

// Digest returns raw, a JSON value, bounded by lim while keeping its shape:
// long arrays keep their first items and end with a string marker
// "[… N more items]", objects keep their first keys (in order) and a "…" key
// saying how many were left out, long strings are cut (at a rune boundary)
// and end with "… [N more bytes]", and what lies below the deepest level
// that fits becomes "[object with N keys]" or "[array of N items]". Limits
// are halved until the digest fits MaxBytes; a value that cannot fit even
// then becomes {"…":"[N bytes omitted]"}. Invalid JSON is treated as a long
// string. Digest is deterministic.
func Digest(raw json.RawMessage, lim DigestLimits) json.RawMessage {
	if !json.Valid(raw) {
		b, _ := json.Marshal(string(raw))
		raw = b
	}
	if lim.MaxBytes <= 0 || len(raw) <= lim.MaxBytes {
		return raw
	}
	items, str, depth := max(lim.MaxItems, 1), max(lim.MaxString, 16), 32
	for {
		out, err := digestOnce(raw, items, str, depth)
		if err == nil && len(out) <= lim.MaxBytes {
			return out
		}
		switch {
		case items > 1 || str > 16:
			items, str = max(items/2, 1), max(str/2, 16)
		case depth > 1:
			depth /= 2
		default:
			return json.RawMessage(`{"…":"[` + strconv.Itoa(len(raw)) + ` bytes omitted]"}`)
		}
	}
}

type digester struct {
	dec       *json.Decoder
	enc       *json.Encoder // writes strings into buf
	buf       bytes.Buffer
	items     int
	maxString int
	maxDepth  int
}

func digestOnce(raw json.RawMessage, items, maxString, maxDepth int) (json.RawMessage, error) {
	d := &digester{dec: json.NewDecoder(bytes.NewReader(raw)), items: items, maxString: maxString, maxDepth: maxDepth}
	d.dec.UseNumber()
	d.enc = json.NewEncoder(&d.buf)
	d.enc.SetEscapeHTML(false)
	d.buf.Grow(min(len(raw), 64<<10))
	if err := d.value(0); err != nil {
		return nil, err
	}
	return d.buf.Bytes(), nil
}

var errDigest = errors.New("agent: digest: unexpected token")

func (d *digester) value(depth int) error {
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= d.maxDepth {
			n, err := d.skipRest(t)
			if err != nil {
				return err
			}
			if t == '{' {
				d.str(fmt.Sprintf("[object with %d keys]", n))
			} else {
				d.str(fmt.Sprintf("[array of %d items]", n))
			}
			return nil
		}
		if t == '{' {
			return d.object(depth)
		}
		if t == '[' {
			return d.array(depth)
		}
		return errDigest
	case string:
		if len(t) > d.maxString {
			cut := d.maxString
			for cut > 0 && !utf8.RuneStart(t[cut]) {
				cut--
			}
			d.str(t[:cut] + "… [" + strconv.Itoa(len(t)-cut) + " more bytes]")
			return nil
		}
		d.str(t)
	case json.Number:
		d.buf.WriteString(string(t))
	case bool:
		d.buf.WriteString(strconv.FormatBool(t))
	case nil:
		d.buf.WriteString("null")
	default:
		return errDigest
	}
	return nil
}

func (d *digester) object(depth int) error {
	d.buf.WriteByte('{')
	n := 0
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return errDigest
		}
		if n == d.items {
			rest, err := d.skipValues(1)
			if err != nil {
				return err
			}
			d.buf.WriteByte(',')
			d.str("…")
			d.buf.WriteByte(':')
			d.str(fmt.Sprintf("[%d more keys]", rest))
			break
		}
		if n > 0 {
			d.buf.WriteByte(',')
		}
		d.str(key)
		d.buf.WriteByte(':')
		if err := d.value(depth + 1); err != nil {
			return err
		}
		n++
	}
	if _, err := d.dec.Token(); err != nil { // '}'
		return err
	}
	d.buf.WriteByte('}')
	return nil
}

func (d *digester) array(depth int) error {
	d.buf.WriteByte('[')
	n := 0
	for d.dec.More() {
		if n == d.items {
			rest, err := d.skipValues(0)
			if err != nil {
				return err
			}
			d.buf.WriteByte(',')
			d.str(fmt.Sprintf("[… %d more items]", rest))
			break
		}
		if n > 0 {
			d.buf.WriteByte(',')
		}
		if err := d.value(depth + 1); err != nil {
			return err
		}
		n++
	}
	if _, err := d.dec.Token(); err != nil { // ']'
		return err
	}
	d.buf.WriteByte(']')
	return nil
}

// skipValues consumes the rest of the current object (keyed: the key of the
// first entry is already read, so 1 value is pending before the next key)
// or array, up to but not including its closing delimiter, and returns how
// many entries it skipped.
func (d *digester) skipValues(pendingKey int) (int, error) {
	n := 0
	if pendingKey == 1 {
		if err := d.skipValue(); err != nil {
			return 0, err
		}
		n++
	}
	for d.dec.More() {
		if pendingKey == 1 {
			if _, err := d.dec.Token(); err != nil { // key
				return 0, err
			}
		}
		if err := d.skipValue(); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// skipRest consumes a container whose opening delimiter was just read,
// including its closing one, and returns its number of entries.
func (d *digester) skipRest(open json.Delim) (int, error) {
	keyed := 0
	if open == '{' {
		keyed = 1
	}
	n := 0
	for d.dec.More() {
		if keyed == 1 {
			if _, err := d.dec.Token(); err != nil {
				return 0, err
			}
		}
		if err := d.skipValue(); err != nil {
			return 0, err
		}
		n++
	}
	_, err := d.dec.Token()
	return n, err
}

func (d *digester) skipValue() error {
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	if delim, ok := tok.(json.Delim); ok {
		if delim != '{' && delim != '[' {
			return io.ErrUnexpectedEOF
		}
		_, err := d.skipRest(delim)
		return err
	}
	return nil
}

// str writes s as a JSON string without HTML escaping (results are read by
// models, not browsers; the SSE encoder escapes what it must).
func (d *digester) str(s string) {
	_ = d.enc.Encode(s) // a string always encodes
	d.buf.Truncate(d.buf.Len() - 1)
}
