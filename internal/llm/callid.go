package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// CallIDSeed identifies req among the calls of one conversation, for
// engines whose servers answer with tool calls that carry no id (the Gemini
// API, Ollama): ids derived from it differ from round to round yet are the
// same when the same request is replayed, so a recorded conversation keeps
// its ids.
func CallIDSeed(req Request) string {
	h := sha256.New()
	h.Write([]byte(req.Model))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(len(req.Messages))))
	if n := len(req.Messages); n > 0 {
		last := req.Messages[n-1]
		h.Write([]byte{0})
		h.Write([]byte(last.Text))
		for _, r := range last.ToolResults {
			h.Write([]byte{0})
			h.Write([]byte(r.CallID))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// DerivedCallID is the id of the index-th tool call of a response that gave
// none, from the CallIDSeed of its request and the call itself.
func DerivedCallID(seed string, index int, name string, args []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00", seed, index, name)
	h.Write(args)
	return "call_" + hex.EncodeToString(h.Sum(nil))[:20]
}
