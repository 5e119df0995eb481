package llm

import (
	"regexp"
	"testing"
)

// TestCallIDs: the seed is the same for the same request and differs when
// the conversation moves on; derived ids differ between the calls of one
// response and have the shape the engines document.
func TestCallIDs(t *testing.T) {
	first := Request{Model: "m", Messages: []Message{{Role: RoleUser, Text: "kinases"}}}
	again := Request{Model: "m", Messages: []Message{{Role: RoleUser, Text: "kinases"}}}
	later := Request{Model: "m", Messages: []Message{
		{Role: RoleUser, Text: "kinases"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "list_sites"}}},
		{Role: RoleTool, ToolResults: []ToolResult{{CallID: "c1", Name: "list_sites"}}},
	}}
	otherModel := Request{Model: "n", Messages: first.Messages}
	seed := CallIDSeed(first)
	if CallIDSeed(again) != seed {
		t.Errorf("the same request gives two seeds")
	}
	for name, req := range map[string]Request{"a later round": later, "another model": otherModel} {
		if CallIDSeed(req) == seed {
			t.Errorf("%s gives the first round's seed", name)
		}
	}
	shape := regexp.MustCompile(`^call_[0-9a-f]{20}$`)
	a := DerivedCallID(seed, 0, "list_sites", []byte(`{}`))
	b := DerivedCallID(seed, 1, "list_sites", []byte(`{}`))
	if a == b || !shape.MatchString(a) || !shape.MatchString(b) {
		t.Errorf("ids %q, %q: want two distinct ids shaped like %s", a, b, shape)
	}
	if DerivedCallID(seed, 0, "list_sites", []byte(`{}`)) != a {
		t.Errorf("the same call gives two ids")
	}
}
