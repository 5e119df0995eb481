package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// argSchema is a tool's argument schema, inferred and resolved once. It is
// never modified after it is made, so the tools of every turn share it.
type argSchema struct {
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
	rendered json.RawMessage
	// emptyValid says {} satisfies the schema: a call without arguments
	// (list_steps, validate_strategy) then needs neither validation nor
	// decoding.
	emptyValid bool
}

// argSchemaKey names an argument schema: the arguments' type and the code
// of the edit applied to it (0 for none). Roles build their tools for every
// turn; inferring and resolving each schema again cost every executor turn
// a few milliseconds of CPU (ToolCallCPU: 47 allocations per call of a
// 200-call turn).
type argSchemaKey struct {
	args reflect.Type
	edit uintptr
}

// argSchemas holds the schemas made so far, by argSchemaKey.
var argSchemas sync.Map

func newArgSchema[Args any](edit func(*jsonschema.Schema)) (*argSchema, error) {
	key := argSchemaKey{args: reflect.TypeFor[Args]()}
	if edit != nil {
		key.edit = reflect.ValueOf(edit).Pointer()
	}
	if a, ok := argSchemas.Load(key); ok {
		return a.(*argSchema), nil
	}
	a, err := makeArgSchema[Args](edit)
	if err != nil {
		return nil, err
	}
	a2, _ := argSchemas.LoadOrStore(key, a)
	return a2.(*argSchema), nil
}

func makeArgSchema[Args any](edit func(*jsonschema.Schema)) (*argSchema, error) {
	if k := reflect.TypeFor[Args]().Kind(); k != reflect.Struct {
		return nil, fmt.Errorf("arguments must be a struct, not %s", k)
	}
	s, err := jsonschema.For[Args](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		// Any JSON: for free-form values and recursive structures (a
		// delegation plan), which inference cannot describe; the handler
		// decodes and checks them itself, or WithSchema describes them.
		reflect.TypeFor[json.RawMessage](): {},
	}})
	if err != nil {
		return nil, fmt.Errorf("infer argument schema: %w", err)
	}
	if edit != nil {
		edit(s)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve argument schema: %w", err)
	}
	rendered, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("render argument schema: %w", err)
	}
	emptyValid := resolved.Validate(map[string]any{}) == nil
	return &argSchema{root: s, resolved: resolved, rendered: rendered, emptyValid: emptyValid}, nil
}

// Problem is one thing wrong with a tool call's arguments, as reported to
// the model in a VALIDATION_ERROR's details.
type Problem struct {
	// Field is a JSON pointer into the arguments ("/plan/left/task"); empty
	// means the arguments as a whole.
	Field   string `json:"field"`
	Problem string `json:"problem"`
	// Allowed lists the accepted field names or values, when there is a
	// short list, so the model can correct itself.
	Allowed []string `json:"allowed,omitempty"`
}

// decode checks raw against the schema and decodes it strictly into dst.
// Absent or null arguments mean {}: models send either for tools without
// parameters.
func (a *argSchema) decode(raw json.RawMessage, dst any) error {
	data := bytes.TrimSpace(raw)
	if len(data) == 0 || string(data) == "null" {
		data = []byte("{}")
	}
	if a.emptyValid && string(data) == "{}" {
		return nil // dst keeps its zero value, as decoding {} would leave it
	}
	var inst any
	if err := json.Unmarshal(data, &inst); err != nil {
		return invalidArgs(Problem{Problem: "arguments are not valid JSON: " + err.Error()})
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return invalidArgs(Problem{Problem: "arguments must be a JSON object, got " + jsonType(inst)})
	}
	if err := a.resolved.Validate(obj); err != nil {
		var probs []Problem
		locate(a.root, obj, "", &probs)
		if len(probs) == 0 {
			// A keyword locate does not know: report the validator's words.
			probs = []Problem{{Problem: strings.TrimPrefix(err.Error(), "validating root: ")}}
		}
		return invalidArgs(probs...)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		p := Problem{Problem: err.Error()}
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			p.Field = "/" + strings.ReplaceAll(te.Field, ".", "/")
			p.Problem = fmt.Sprintf("%s does not fit in %s", te.Value, te.Type)
		}
		return invalidArgs(p)
	}
	return nil
}

func invalidArgs(probs ...Problem) *ToolError {
	first := probs[0]
	msg := "invalid arguments: "
	if first.Field != "" {
		msg += first.Field + ": "
	}
	msg += first.Problem
	if len(probs) > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", len(probs)-1)
	}
	return &ToolError{
		Code:    CodeValidation,
		Message: msg,
		Details: map[string]any{"field": first.Field, "problems": probs},
	}
}

// locate walks an instance that failed validation beside its schema and
// reports each problem at its JSON pointer: the validator's own errors name
// schema paths, and the model needs to know which argument to fix.
func locate(s *jsonschema.Schema, v any, path string, out *[]Problem) {
	if s == nil {
		return
	}
	add := func(p Problem) { *out = append(*out, p) }
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
		want := slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
		add(Problem{Field: path, Problem: fmt.Sprintf("want %s, got %s", strings.Join(want, " or "), jsonType(v))})
		return
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonEqual(e, v) }) {
		allowed := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			b, _ := json.Marshal(e)
			allowed[i] = string(b)
		}
		add(Problem{Field: path, Problem: "not one of the allowed values", Allowed: allowed})
		return
	}
	switch x := v.(type) {
	case float64:
		if s.Minimum != nil && x < *s.Minimum {
			add(Problem{Field: path, Problem: fmt.Sprintf("must be at least %v", *s.Minimum)})
		}
		if s.Maximum != nil && x > *s.Maximum {
			add(Problem{Field: path, Problem: fmt.Sprintf("must be at most %v", *s.Maximum)})
		}
	case string:
		n := utf8.RuneCountInString(x)
		if s.MinLength != nil && n < *s.MinLength {
			add(Problem{Field: path, Problem: fmt.Sprintf("must have at least %d characters", *s.MinLength)})
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			add(Problem{Field: path, Problem: fmt.Sprintf("must have at most %d characters", *s.MaxLength)})
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(x) {
				add(Problem{Field: path, Problem: "must match " + s.Pattern})
			}
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			add(Problem{Field: path, Problem: fmt.Sprintf("must have at least %d items", *s.MinItems)})
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			add(Problem{Field: path, Problem: fmt.Sprintf("must have at most %d items", *s.MaxItems)})
		}
		for i, e := range x {
			locate(s.Items, e, path+"/"+strconv.Itoa(i), out)
		}
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				add(Problem{Field: path + "/" + pointerToken(r), Problem: "missing required field"})
			}
		}
		closed := isFalseSchema(s.AdditionalProperties)
		var names []string
		if closed {
			names = propertyNames(s)
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := path + "/" + pointerToken(k)
			if ps, ok := s.Properties[k]; ok {
				locate(ps, x[k], p, out)
				continue
			}
			if closed {
				add(Problem{Field: p, Problem: "unknown field", Allowed: names})
				continue
			}
			locate(s.AdditionalProperties, x[k], p, out)
		}
	}
}

func propertyNames(s *jsonschema.Schema) []string {
	if len(s.PropertyOrder) > 0 {
		return slices.Clone(s.PropertyOrder)
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func isFalseSchema(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// pointerToken escapes a key for a JSON pointer (RFC 6901).
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func hasType(v any, t string) bool {
	switch t {
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "number":
		_, ok := v.(float64)
		return ok
	default:
		return jsonType(v) == t
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}
