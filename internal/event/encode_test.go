package event_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"strategist/internal/event"
)

// TestRoundTrip: every event type encodes under a name of its own and
// decodes back to the same value.
func TestRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, proto := range event.All() {
		// A value with every field set, by decoding a payload that names
		// them all with non-zero values.
		e := filled(t, proto)
		name, payload, err := event.Encode(e)
		if err != nil {
			t.Fatalf("Encode(%T): %v", e, err)
		}
		if name == "" || seen[name] {
			t.Errorf("%T: name %q is empty or not its own", e, name)
		}
		seen[name] = true
		back, err := event.Decode(name, payload)
		if err != nil {
			t.Fatalf("Decode(%s): %v", name, err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Errorf("%s: decoded %+v, want %+v", name, back, e)
		}
		if back.Turn() != "turn-1" {
			t.Errorf("%s: turn %q after the round trip", name, back.Turn())
		}
	}
	if _, err := event.Decode("no_such_event", []byte(`{}`)); err == nil {
		t.Error("Decode of an unknown name succeeded")
	}
}

// filled returns a copy of proto whose string, number and bool fields are
// set, so a field the encoder drops shows up as a difference.
func filled(t *testing.T, proto event.Event) event.Event {
	t.Helper()
	v := reflect.New(reflect.TypeOf(proto).Elem())
	fill(v.Elem())
	e, ok := v.Interface().(event.Event)
	if !ok {
		t.Fatalf("%T is not an event", v.Interface())
	}
	return e
}

func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("turn-1")
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			v.Set(reflect.ValueOf(json.RawMessage(`{"k":1}`)))
		}
	}
}
