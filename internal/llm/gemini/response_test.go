package gemini

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

// TestMerge pins down how streamed parts become the one content sent back:
// text deltas join until a signature closes the part, and nothing else is
// ever joined.
func TestMerge(t *testing.T) {
	sig := []byte("sig")
	text := func(s string) *genai.Part { return &genai.Part{Text: s} }
	signed := func(s string) *genai.Part { return &genai.Part{Text: s, ThoughtSignature: sig} }
	thought := func(s string) *genai.Part { return &genai.Part{Text: s, Thought: true} }
	call := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "list_sites"}}
	tests := []struct {
		name string
		in   []*genai.Part
		want string
	}{
		{"deltas join", []*genai.Part{text("A"), text("B"), text("C")}, `[{"text":"ABC"}]`},
		{"a signature closes the part it arrives on", []*genai.Part{text("A"), signed("B"), text("C")}, `[{"text":"AB","thoughtSignature":"c2ln"},{"text":"C"}]`},
		{"a signed first delta stays alone", []*genai.Part{signed("A"), text("B")}, `[{"text":"A","thoughtSignature":"c2ln"},{"text":"B"}]`},
		{"an empty signed part stays its own part", []*genai.Part{text("A"), signed("")}, `[{"text":"A"},{"thoughtSignature":"c2ln"}]`},
		{"thoughts and answer stay apart", []*genai.Part{thought("T1"), thought("T2"), text("A")}, `[{"text":"T1T2","thought":true},{"text":"A"}]`},
		{"a call splits the text", []*genai.Part{text("A"), call, text("B")}, `[{"text":"A"},{"functionCall":{"name":"list_sites"}},{"text":"B"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAccumulator("seed")
			for _, p := range tt.in {
				a.merge(p)
			}
			a.closeText()
			got, err := json.Marshal(a.content.Parts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(json.RawMessage(tt.want), json.RawMessage(got), jsonEqual); diff != "" {
				t.Errorf("parts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
