package tool

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

type planNode struct {
	Type     string    `json:"type" jsonschema:"task or combine"`
	Task     string    `json:"task,omitempty"`
	Operator string    `json:"operator,omitempty"`
	Left     *taskNode `json:"left,omitempty"`
}

// noArgs is the arguments of a tool that takes none.
type noArgs struct{}

type taskNode struct {
	Task string `json:"task"`
}

type stepArgs struct {
	SearchName  string            `json:"search_name" jsonschema:"the WDK search name"`
	Parameters  map[string]string `json:"parameters" jsonschema:"parameter values, WDK string encoding"`
	DisplayName string            `json:"display_name,omitempty"`
	Weight      int8              `json:"weight,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Plan        *planNode         `json:"plan,omitempty"`
}

func stepTool(got *stepArgs) Tool {
	return NewTool("create_step", "Create a search step.", func(_ context.Context, a stepArgs) (map[string]string, error) {
		*got = a
		return map[string]string{"stepId": "s1"}, nil
	}, WithSchema(func(s *jsonschema.Schema) {
		s.Properties["plan"].Properties["operator"].Enum = []any{"INTERSECT", "UNION", "MINUS"}
	}))
}

// TestToolSchemaShared: building a tool again (every turn does) reuses its
// schema, while another edit of the same argument type gets its own.
func TestToolSchemaShared(t *testing.T) {
	var got stepArgs
	a, b := stepTool(&got), stepTool(&got)
	if a.args != b.args {
		t.Error("the same tool built twice made its schema twice")
	}
	bounded := NewTool("create_step", "Create a search step.", func(_ context.Context, a stepArgs) (string, error) { return "", nil },
		WithSchema(func(s *jsonschema.Schema) { s.Properties["weight"].Minimum = new(0.0) }))
	plain := NewTool("create_step", "Create a search step.", func(_ context.Context, a stepArgs) (string, error) { return "", nil })
	if bounded.args == a.args || plain.args == a.args || plain.args == bounded.args {
		t.Fatal("different edits of one argument type share a schema")
	}
	if _, err := bounded.Call(context.Background(), json.RawMessage(`{"search_name":"s","parameters":{},"weight":-1}`)); err == nil {
		t.Error("the bounded tool took weight -1")
	}
	if _, err := plain.Call(context.Background(), json.RawMessage(`{"search_name":"s","parameters":{},"weight":-1}`)); err != nil {
		t.Errorf("the plain tool refused weight -1: %v", err)
	}
}

func TestToolDecl(t *testing.T) {
	var got stepArgs
	decl := stepTool(&got).Decl()
	var schema map[string]any
	if err := json.Unmarshal(decl.Schema, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if decl.Name != "create_step" || decl.Description != "Create a search step." {
		t.Errorf("decl = %s / %s", decl.Name, decl.Description)
	}
	if diff := cmp.Diff([]any{"search_name", "parameters"}, schema["required"]); diff != "" {
		t.Errorf("required mismatch (-want +got):\n%s", diff)
	}
	props := schema["properties"].(map[string]any)
	if d := props["search_name"].(map[string]any)["description"]; d != "the WDK search name" {
		t.Errorf("search_name description = %v", d)
	}
	if schema["additionalProperties"] != false {
		t.Errorf("additionalProperties = %v, want false", schema["additionalProperties"])
	}
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		want  []Problem // nil: valid
		check func(t *testing.T, a stepArgs)
	}{
		{name: "valid", args: `{"search_name":"GenesByText","parameters":{"text":"kinase"},"tags":["a"],"plan":{"type":"task","task":"x","operator":"UNION"}}`,
			check: func(t *testing.T, a stepArgs) {
				if a.SearchName != "GenesByText" || a.Parameters["text"] != "kinase" || a.Plan.Operator != "UNION" {
					t.Errorf("decoded %+v", a)
				}
			}},
		{name: "missing required", args: `{"search_name":"x"}`,
			want: []Problem{{Field: "/parameters", Problem: "missing required field"}}},
		{name: "null means empty object", args: `null`,
			want: []Problem{{Field: "/search_name", Problem: "missing required field"}, {Field: "/parameters", Problem: "missing required field"}}},
		{name: "wrong type", args: `{"search_name":7,"parameters":{}}`,
			want: []Problem{{Field: "/search_name", Problem: "want string, got number"}}},
		{name: "wrong map value type", args: `{"search_name":"x","parameters":{"a":["1"]}}`,
			want: []Problem{{Field: "/parameters/a", Problem: "want string, got array"}}},
		{name: "unknown field", args: `{"search_name":"x","parameters":{},"searchName":"y"}`,
			want: []Problem{{Field: "/searchName", Problem: "unknown field",
				Allowed: []string{"search_name", "parameters", "display_name", "weight", "tags", "plan"}}}},
		{name: "case differs from the field", args: `{"Search_Name":"x","search_name":"x","parameters":{}}`,
			want: []Problem{{Field: "/Search_Name", Problem: "unknown field",
				Allowed: []string{"search_name", "parameters", "display_name", "weight", "tags", "plan"}}}},
		{name: "array item", args: `{"search_name":"x","parameters":{},"tags":["a",3]}`,
			want: []Problem{{Field: "/tags/1", Problem: "want string, got number"}}},
		{name: "nested unknown and enum", args: `{"search_name":"x","parameters":{},"plan":{"type":"combine","operator":"XOR","lefft":{}}}`,
			want: []Problem{
				{Field: "/plan/lefft", Problem: "unknown field", Allowed: []string{"type", "task", "operator", "left"}},
				{Field: "/plan/operator", Problem: "not one of the allowed values", Allowed: []string{`"INTERSECT"`, `"UNION"`, `"MINUS"`}},
			}},
		{name: "integer out of range", args: `{"search_name":"x","parameters":{},"weight":300}`,
			want: []Problem{{Field: "/weight", Problem: "must be at most 127"}}},
		{name: "fraction for an integer", args: `{"search_name":"x","parameters":{},"weight":1.5}`,
			want: []Problem{{Field: "/weight", Problem: "want integer, got number"}}},
		{name: "not an object", args: `["x"]`,
			want: []Problem{{Problem: "arguments must be a JSON object, got array"}}},
		{name: "not JSON", args: `{"search_name":`,
			want: []Problem{{Problem: "arguments are not valid JSON: unexpected end of JSON input"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got stepArgs
			_, err := stepTool(&got).Call(t.Context(), json.RawMessage(tt.args))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Call: %v", err)
				}
				tt.check(t, got)
				return
			}
			te, ok := errors.AsType[*ToolError](err)
			if !ok || te.Code != CodeValidation {
				t.Fatalf("Call error = %v, want a VALIDATION_ERROR", err)
			}
			if diff := cmp.Diff(tt.want, te.Details["problems"]); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
			if te.Details["field"] != tt.want[0].Field {
				t.Errorf("details.field = %v, want %q", te.Details["field"], tt.want[0].Field)
			}
		})
	}
}

// TestNoArguments: a tool without arguments takes {}, null or nothing, and
// still refuses an argument it does not have.
func TestNoArguments(t *testing.T) {
	calls := 0
	tool := NewTool("list_steps", "List the steps.", func(context.Context, struct{}) (string, error) { calls++; return "ok", nil })
	for _, raw := range []string{`{}`, ` {} `, `null`, ``, `{ }`} {
		if _, err := tool.Call(t.Context(), json.RawMessage(raw)); err != nil {
			t.Errorf("Call(%q): %v", raw, err)
		}
	}
	if calls != 5 {
		t.Errorf("handler ran %d times, want 5", calls)
	}
	_, err := tool.Call(t.Context(), json.RawMessage(`{"step_id":"s1"}`))
	if te, ok := errors.AsType[*ToolError](err); !ok || te.Code != CodeValidation {
		t.Errorf("Call with an unknown argument = %v, want a VALIDATION_ERROR", err)
	}
}

func TestNewToolsetErrors(t *testing.T) {
	ok := func(context.Context, noArgs) (struct{}, error) { return struct{}{}, nil }
	tests := []struct {
		name  string
		tools []Tool
		is    error
	}{
		{name: "duplicate", tools: []Tool{NewTool("a", "", ok), NewTool("a", "", ok)}, is: ErrDuplicateTool},
		{name: "bad name", tools: []Tool{NewTool("a tool", "", ok)}},
		{name: "empty name", tools: []Tool{NewTool("", "", ok)}},
		{name: "args not a struct", tools: []Tool{NewTool("a", "", func(context.Context, string) (int, error) { return 0, nil })}},
		{name: "args cannot be described", tools: []Tool{NewTool("a", "", func(context.Context, struct{ C chan int }) (int, error) { return 0, nil })}},
		{name: "recursive args", tools: []Tool{NewTool("a", "", func(context.Context, recursiveArgs) (int, error) { return 0, nil })}},
		{name: "nil handler", tools: []Tool{NewTool[noArgs, int]("a", "", nil)}},
		{name: "zero tool", tools: []Tool{{}}},
		{name: "negative timeout", tools: []Tool{NewTool("a", "", ok, WithTimeout(-time.Second))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewToolset(tt.tools...)
			if err == nil {
				t.Fatal("NewToolset succeeded")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error = %v, want %v", err, tt.is)
			}
		})
	}
	s := newToolset(t, NewTool("b", "", ok), NewTool("a", "", ok))
	if diff := cmp.Diff([]string{"b", "a"}, s.Names()); diff != "" {
		t.Errorf("Names() keeps order (-want +got):\n%s", diff)
	}
	if _, found := s.Lookup("c"); found {
		t.Error("Lookup(c) found a tool")
	}
}

type recursiveArgs struct {
	Left *recursiveArgs `json:"left,omitempty"`
}

func TestRawArgumentsAcceptAnyJSON(t *testing.T) {
	type args struct {
		Goal string          `json:"goal"`
		Plan json.RawMessage `json:"plan" jsonschema:"the plan tree"`
	}
	var got args
	tool := NewTool("delegate", "", func(_ context.Context, a args) (struct{}, error) {
		got = a
		return struct{}{}, nil
	})
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(tool.Decl().Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if s := string(schema.Properties["plan"]); s != `{"description":"the plan tree"}` {
		t.Errorf("plan schema = %s, want any JSON with its description", s)
	}
	if _, err := tool.Call(t.Context(), json.RawMessage(`{"goal":"g","plan":{"type":"task","left":{"deep":[1]}}}`)); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if string(got.Plan) != `{"type":"task","left":{"deep":[1]}}` {
		t.Errorf("plan = %s", got.Plan)
	}
	if _, err := tool.Call(t.Context(), json.RawMessage(`{"goal":"g"}`)); err == nil {
		t.Error("a missing plan was accepted")
	}
}

// FuzzDecodeArgs checks that no argument text crashes the decoder, that
// every rejection is a VALIDATION_ERROR naming problems, and that accepted
// arguments survive a round trip.
func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{
		`{"search_name":"GenesByText","parameters":{"text":"kinase"}}`,
		`{"search_name":"x","parameters":{},"weight":127,"tags":["a"],"plan":{"type":"task","left":{"task":"t"}}}`,
		`{"search_name":"x","parameters":{},"plan":{"type":"c","operator":"XOR"}}`,
		`{"search_name":"x","parameters":{"a":null}}`,
		`{"Search_name":"x"}`, `null`, ``, `[]`, `"x"`, `{"a":1e400}`, `{"weight":-129}`, "{\"search_name\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	var sink stepArgs
	tool := stepTool(&sink)
	schema := tool.args
	f.Fuzz(func(t *testing.T, raw []byte) {
		var a stepArgs
		err := schema.decode(raw, &a)
		if err != nil {
			te, ok := errors.AsType[*ToolError](err)
			if !ok || te.Code != CodeValidation || len(te.Details["problems"].([]Problem)) == 0 {
				t.Fatalf("decode(%q) = %v, want a VALIDATION_ERROR with problems", raw, err)
			}
			return
		}
		again, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", a, err)
		}
		var b stepArgs
		if err := schema.decode(again, &b); err != nil {
			t.Fatalf("decode(%q) accepted, but its re-encoding %s is rejected: %v", raw, again, err)
		}
		if !reflect.DeepEqual(normalize(a), normalize(b)) {
			t.Fatalf("round trip changed the arguments: %+v vs %+v", a, b)
		}
	})
}

func newToolset(t testing.TB, tools ...Tool) *Toolset {
	t.Helper()
	s, err := NewToolset(tools...)
	if err != nil {
		t.Fatalf("NewToolset: %v", err)
	}
	return s
}

// normalize treats nil and empty collections alike (omitempty drops them).
func normalize(a stepArgs) stepArgs {
	if len(a.Tags) == 0 {
		a.Tags = nil
	}
	if len(a.Parameters) == 0 {
		a.Parameters = nil
	}
	return a
}
