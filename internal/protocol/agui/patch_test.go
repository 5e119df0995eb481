package agui

import (
	"encoding/json"
	"testing"
)

// TestJSONPatch: the patch between two JSON documents works key by key and
// index by index, adds and removes at arrays' ends, escapes keys, and is
// empty between equal documents.
func TestJSONPatch(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{`{"x":1}`, `{"x":1}`, `null`},
		{`null`, `{"s":[1]}`, `[{"op":"replace","path":"/strategy","value":{"s":[1]}}]`},
		{`{"a":1,"b":2}`, `{"b":3,"c":4}`, `[{"op":"remove","path":"/strategy/a"},{"op":"replace","path":"/strategy/b","value":3},{"op":"add","path":"/strategy/c","value":4}]`},
		{`{"s":[1,2]}`, `{"s":[1,5,6]}`, `[{"op":"replace","path":"/strategy/s/1","value":5},{"op":"add","path":"/strategy/s/2","value":6}]`},
		{`{"s":[1,2,3]}`, `{"s":[1]}`, `[{"op":"remove","path":"/strategy/s/2"},{"op":"remove","path":"/strategy/s/1"}]`},
		{`{"a/b":{"c~d":1}}`, `{"a/b":{"c~d":2}}`, `[{"op":"replace","path":"/strategy/a~1b/c~0d","value":2}]`},
		{`{"s":[1]}`, `{"s":"x"}`, `[{"op":"replace","path":"/strategy/s","value":"x"}]`},
	} {
		var a, b any
		if err := json.Unmarshal([]byte(tc.a), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.b), &b); err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(jsonPatch("/strategy", a, b, nil))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s to %s:\n got %s\nwant %s", tc.a, tc.b, got, tc.want)
		}
	}
}
