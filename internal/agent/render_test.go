package agent

import "testing"

func TestRenderResult(t *testing.T) {
	type pair struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	tests := []struct {
		name string
		v    any
		want string
		err  bool
	}{
		{name: "struct keeps field order", v: pair{A: 1, B: "x"}, want: `{"ok":true,"a":1,"b":"x"}`},
		{name: "empty object", v: struct{}{}, want: `{"ok":true}`},
		{name: "nil", v: nil, want: `{"ok":true}`},
		{name: "nil slice", v: []int(nil), want: `{"ok":true}`},
		{name: "array", v: []string{"a"}, want: `{"ok":true,"result":["a"]}`},
		{name: "string", v: "done", want: `{"ok":true,"result":"done"}`},
		{name: "number", v: 42, want: `{"ok":true,"result":42}`},
		{name: "reserved ok", v: map[string]bool{"ok": true}, err: true},
		{name: "reserved ok after other keys", v: map[string]any{"a": []string{"ok"}, "ok": 1}, err: true},
		{name: "nested ok is fine", v: map[string]any{"inner": map[string]bool{"ok": false}, "z": "ok"},
			want: `{"ok":true,"inner":{"ok":false},"z":"ok"}`},
		{name: "unencodable", v: func() {}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderResult(tt.v)
			if tt.err {
				if err == nil {
					t.Errorf("renderResult = %s, want an error", got)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("renderResult = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}
