package agent

import (
	"encoding/json"
	"errors"
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
	return digestValid(raw, lim)
}

// digestValid is Digest for JSON known to be valid (just encoded by
// json.Marshal), which it need not check again.
func digestValid(raw json.RawMessage, lim DigestLimits) json.RawMessage {
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

// digester copies a valid JSON text into out, bounded. It works on the
// encoded bytes (no decoding, no allocation per value): strings are cut in
// their encoded form, never inside an escape or a UTF-8 sequence.
type digester struct {
	in        []byte
	pos       int
	out       []byte
	items     int
	maxString int
	maxDepth  int
}

func digestOnce(raw json.RawMessage, items, maxString, maxDepth int) (json.RawMessage, error) {
	d := &digester{in: raw, items: items, maxString: maxString, maxDepth: maxDepth,
		out: make([]byte, 0, min(len(raw), 64<<10))}
	if err := d.value(0); err != nil {
		return nil, err
	}
	return d.out, nil
}

var errDigest = errors.New("agent: digest: malformed JSON")

func (d *digester) ws() {
	for d.pos < len(d.in) {
		switch d.in[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte.
func (d *digester) peek() (byte, error) {
	d.ws()
	if d.pos >= len(d.in) {
		return 0, errDigest
	}
	return d.in[d.pos], nil
}

func (d *digester) value(depth int) error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch c {
	case '{', '[':
		if depth >= d.maxDepth {
			n, err := d.skipContainer()
			if err != nil {
				return err
			}
			if c == '{' {
				d.marker("[object with ", n, " keys]")
			} else {
				d.marker("[array of ", n, " items]")
			}
			return nil
		}
		return d.container(c == '{', depth)
	case '"':
		return d.str()
	default:
		start := d.pos
		d.literal()
		d.out = append(d.out, d.in[start:d.pos]...)
		return nil
	}
}

// container copies an object or array, keeping its first d.items entries.
func (d *digester) container(object bool, depth int) error {
	open, closing := byte('['), byte(']')
	if object {
		open, closing = '{', '}'
	}
	d.pos++
	d.out = append(d.out, open)
	for n := 0; ; n++ {
		c, err := d.peek()
		if err != nil {
			return err
		}
		if c == closing {
			d.pos++
			d.out = append(d.out, closing)
			return nil
		}
		if n > 0 {
			if c != ',' {
				return errDigest
			}
			d.pos++
		}
		if n == d.items {
			rest, err := d.skipEntries(object, closing)
			if err != nil {
				return err
			}
			if object {
				d.out = append(d.out, `,"…":`...)
				d.marker("[", rest, " more keys]")
			} else {
				d.out = append(d.out, ',')
				d.marker("[… ", rest, " more items]")
			}
			d.out = append(d.out, closing)
			return nil
		}
		if n > 0 {
			d.out = append(d.out, ',')
		}
		if object {
			if err := d.key(true); err != nil {
				return err
			}
		}
		if err := d.value(depth + 1); err != nil {
			return err
		}
	}
}

// key reads an object key and its colon, copying them if keep.
func (d *digester) key(keep bool) error {
	if c, err := d.peek(); err != nil || c != '"' {
		return errDigest
	}
	start := d.pos
	end, err := d.stringEnd(start)
	if err != nil {
		return err
	}
	d.pos = end
	if c, err := d.peek(); err != nil || c != ':' {
		return errDigest
	}
	d.pos++
	if keep {
		d.out = append(d.out, d.in[start:end]...)
		d.out = append(d.out, ':')
	}
	return nil
}

// skipEntries skips the entries left in a container, the first of which
// starts at d.pos, up to and including its closing byte, and counts them.
func (d *digester) skipEntries(object bool, closing byte) (int, error) {
	n := 0
	for {
		if object {
			if err := d.key(false); err != nil {
				return 0, err
			}
		}
		if err := d.skipValue(); err != nil {
			return 0, err
		}
		n++
		c, err := d.peek()
		if err != nil {
			return 0, err
		}
		d.pos++
		switch c {
		case ',':
		case closing:
			return n, nil
		default:
			return 0, errDigest
		}
	}
}

// skipContainer skips the container starting at d.pos and counts its
// entries.
func (d *digester) skipContainer() (int, error) {
	object := d.in[d.pos] == '{'
	closing := byte(']')
	if object {
		closing = '}'
	}
	d.pos++
	c, err := d.peek()
	if err != nil {
		return 0, err
	}
	if c == closing {
		d.pos++
		return 0, nil
	}
	return d.skipEntries(object, closing)
}

func (d *digester) skipValue() error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch c {
	case '{', '[':
		_, err := d.skipContainer()
		return err
	case '"':
		end, err := d.stringEnd(d.pos)
		d.pos = end
		return err
	default:
		d.literal()
		return nil
	}
}

// literal advances over a number, true, false or null.
func (d *digester) literal() {
	for d.pos < len(d.in) {
		switch d.in[d.pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return
		}
		d.pos++
	}
}

// stringEnd returns the index just after the string starting at i.
func (d *digester) stringEnd(i int) (int, error) {
	for j := i + 1; j < len(d.in); j++ {
		switch d.in[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errDigest
}

// str copies the string at d.pos, cut to d.maxString encoded bytes.
func (d *digester) str() error {
	start := d.pos
	end, err := d.stringEnd(start)
	if err != nil {
		return err
	}
	d.pos = end
	content := d.in[start+1 : end-1]
	if len(content) <= d.maxString {
		d.out = append(d.out, d.in[start:end]...)
		return nil
	}
	cut := 0
	for cut < len(content) {
		l := 1
		switch c := content[cut]; {
		case c == '\\' && cut+1 < len(content) && content[cut+1] == 'u':
			l = 6
		case c == '\\':
			l = 2
		case c >= utf8.RuneSelf:
			_, l = utf8.DecodeRune(content[cut:])
		}
		if cut+l > d.maxString {
			break
		}
		cut += l
	}
	d.out = append(d.out, '"')
	d.out = append(d.out, content[:cut]...)
	d.out = append(d.out, "… ["...)
	d.out = strconv.AppendInt(d.out, int64(len(content)-cut), 10)
	d.out = append(d.out, ` more bytes]"`...)
	return nil
}

// marker writes the JSON string before+n+after.
func (d *digester) marker(before string, n int, after string) {
	d.out = append(d.out, '"')
	d.out = append(d.out, before...)
	d.out = strconv.AppendInt(d.out, int64(n), 10)
	d.out = append(d.out, after...)
	d.out = append(d.out, '"')
}
