package agent

import (
	"hash/maphash"
	"math"
	"sync"
	"unicode/utf8"

	"strategist/internal/llm"
)

// Estimator estimates the prompt tokens of requests without a tokenizer. A
// message's raw estimate is a cheap lexical count (CountTokens, plus a few
// tokens of framing per message and tool); it is cached by a
// hash of the message's content, so a long history is scanned once, not on
// every round and turn. Raw estimates are then scaled by a per-model ratio
// learnt from the prompt tokens engines report (Observe), so that
// compaction decisions follow the real tokenizer.
//
// Safe for concurrent use; one Estimator is meant to be shared by the whole
// process.
type Estimator struct {
	seed maphash.Seed
	max  int // entries per generation

	mu     sync.Mutex
	cur    map[uint64]int     // guarded by mu; recent raw estimates
	old    map[uint64]int     // guarded by mu; the previous generation
	ratios map[string]float64 // guarded by mu; actual/raw per model
}

// NewEstimator returns an estimator caching up to about 2×capacity message
// estimates (capacity <= 0 means 4096). The cache keeps two generations and
// drops the older when the newer is full: recently used entries survive.
func NewEstimator(capacity int) *Estimator {
	if capacity <= 0 {
		capacity = 4096
	}
	return &Estimator{
		seed:   maphash.MakeSeed(),
		max:    capacity,
		cur:    make(map[uint64]int),
		old:    make(map[uint64]int),
		ratios: make(map[string]float64),
	}
}

// Estimate is a request's estimated prompt size: Raw before calibration,
// Tokens after.
type Estimate struct {
	Raw    int
	Tokens int
}

// Tokens per message and per tool declaration for the framing engines add.
const (
	messageOverhead = 4
	toolOverhead    = 8
)

// Estimate estimates the prompt tokens of req for model.
func (e *Estimator) Estimate(model string, req *llm.Request) Estimate {
	raw := e.cached(0, req.System, "", "")
	for i := range req.Messages {
		raw += e.Message(&req.Messages[i])
	}
	for i := range req.Tools {
		t := &req.Tools[i]
		raw += e.cached(toolOverhead, t.Name, t.Description, string(t.Schema))
	}
	return Estimate{Raw: raw, Tokens: e.calibrated(model, raw)}
}

// Message returns the raw (uncalibrated) estimate of one message.
func (e *Estimator) Message(m *llm.Message) int {
	if len(m.ToolCalls) == 0 && len(m.ToolResults) == 0 {
		return e.cached(messageOverhead, string(m.Role), m.Text, "")
	}
	var h maphash.Hash
	h.SetSeed(e.seed)
	writeField(&h, string(m.Role))
	writeField(&h, m.Text)
	for _, c := range m.ToolCalls {
		writeField(&h, c.Name)
		writeBytes(&h, c.Args)
	}
	for _, r := range m.ToolResults {
		writeField(&h, r.Name)
		writeBytes(&h, r.Content)
	}
	key := h.Sum64()
	if n, ok := e.lookup(key); ok {
		return n
	}
	n := messageOverhead + CountTokens(m.Text)
	for _, c := range m.ToolCalls {
		n += toolOverhead + CountTokens(c.Name) + CountTokens(string(c.Args))
	}
	for _, r := range m.ToolResults {
		n += toolOverhead + CountTokens(r.Name) + CountTokens(string(r.Content))
	}
	e.store(key, n)
	return n
}

// cached counts the tokens of a, b and c plus overhead, through the cache.
func (e *Estimator) cached(overhead int, a, b, c string) int {
	var h maphash.Hash
	h.SetSeed(e.seed)
	writeField(&h, a)
	writeField(&h, b)
	writeField(&h, c)
	key := h.Sum64()
	if n, ok := e.lookup(key); ok {
		return n
	}
	n := overhead + CountTokens(a) + CountTokens(b) + CountTokens(c)
	e.store(key, n)
	return n
}

// writeField writes a length-prefixed field, so ("ab","c") and ("a","bc")
// hash differently.
func writeField(h *maphash.Hash, s string) {
	writeLen(h, len(s))
	h.WriteString(s)
}

func writeBytes(h *maphash.Hash, b []byte) {
	writeLen(h, len(b))
	h.Write(b)
}

func writeLen(h *maphash.Hash, l int) {
	var n [8]byte
	for i := range n {
		n[i] = byte(uint64(l) >> (8 * i))
	}
	h.Write(n[:])
}

func (e *Estimator) lookup(key uint64) (int, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n, ok := e.cur[key]; ok {
		return n, true
	}
	if n, ok := e.old[key]; ok {
		e.put(key, n) // promote
		return n, true
	}
	return 0, false
}

func (e *Estimator) store(key uint64, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.put(key, n)
}

func (e *Estimator) put(key uint64, n int) {
	if len(e.cur) >= e.max {
		e.old, e.cur = e.cur, make(map[uint64]int, e.max)
	}
	e.cur[key] = n
}

// Observe calibrates model's ratio with a call whose prompt was estimated as
// est and reported by the engine as actual tokens: an exponential moving
// average, so one odd call does not swing it, clamped to [0.25, 4].
func (e *Estimator) Observe(model string, est Estimate, actual int) {
	if est.Raw <= 0 || actual <= 0 {
		return
	}
	r := float64(actual) / float64(est.Raw)
	e.mu.Lock()
	defer e.mu.Unlock()
	if old, ok := e.ratios[model]; ok {
		r = 0.7*old + 0.3*r
	}
	e.ratios[model] = min(max(r, 0.25), 4)
}

// Ratio returns model's calibration ratio (1 before any observation).
func (e *Estimator) Ratio(model string) float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r, ok := e.ratios[model]; ok {
		return r
	}
	return 1
}

func (e *Estimator) calibrated(model string, raw int) int {
	return int(math.Ceil(float64(raw) * e.Ratio(model)))
}

// CountTokens is the uncached lexical estimate of s (see Estimator): a run
// of ASCII letters and digits costs a token per five bytes (most words are
// one token), a run of ASCII punctuation a token per two bytes (tokenizers
// merge `":` and `","`), every other character a token, spaces nothing.
func CountTokens(s string) int {
	n, word, punct := 0, 0, 0
	flush := func() {
		n += (word+4)/5 + (punct+1)/2
		word, punct = 0, 0
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			flush()
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
			continue
		}
		i++
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			if punct > 0 {
				flush()
			}
			word++
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			flush()
		default:
			if word > 0 {
				flush()
			}
			punct++
		}
	}
	flush()
	return n
}
