package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDigest(t *testing.T) {
	ids := make([]int, 40)
	for i := range ids {
		ids[i] = 1000 + i
	}
	idsJSON, _ := json.Marshal(map[string]any{"count": 40, "ids": ids})
	long := strings.Repeat("é", 100) // 200 bytes
	tests := []struct {
		name string
		raw  string
		lim  DigestLimits
		want string
	}{
		{name: "within limit is unchanged", raw: `{"a":[1,2,3]}`, lim: DigestLimits{MaxBytes: 100}, want: `{"a":[1,2,3]}`},
		{name: "no limit", raw: string(idsJSON), lim: DigestLimits{}, want: string(idsJSON)},
		{
			name: "long array keeps its head",
			raw:  string(idsJSON), lim: DigestLimits{MaxBytes: 100, MaxItems: 5, MaxString: 100},
			want: `{"count":40,"ids":[1000,1001,1002,1003,1004,"[… 35 more items]"]}`,
		},
		{
			name: "limits halve until it fits",
			raw:  string(idsJSON), lim: DigestLimits{MaxBytes: 60, MaxItems: 20, MaxString: 100},
			want: `{"count":40,"ids":[1000,1001,"[… 38 more items]"]}`,
		},
		{
			name: "long string cut at a rune boundary",
			raw:  `{"summary":"` + long + `"}`, lim: DigestLimits{MaxBytes: 80, MaxItems: 5, MaxString: 41},
			want: `{"summary":"` + strings.Repeat("é", 20) + `… [160 more bytes]"}`,
		},
		{
			name: "many keys",
			raw:  `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}`, lim: DigestLimits{MaxBytes: 36, MaxItems: 2, MaxString: 100},
			want: `{"a":1,"b":2,"…":"[4 more keys]"}`,
		},
		{
			name: "deep values summarised",
			raw:  `{"a":{"b":{"c":{"d":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}}}}`,
			lim:  DigestLimits{MaxBytes: 40, MaxItems: 1, MaxString: 16},
			want: `{"a":{"b":"[object with 1 keys]"}}`,
		},
		{
			name: "nothing fits",
			raw:  string(idsJSON), lim: DigestLimits{MaxBytes: 10, MaxItems: 5, MaxString: 100},
			want: `{"…":"[220 bytes omitted]"}`,
		},
		{
			name: "invalid JSON becomes a string",
			raw:  `not json at all, and long enough to cut`, lim: DigestLimits{MaxBytes: 40, MaxItems: 5, MaxString: 16},
			want: `"not json at all,… [23 more bytes]"`,
		},
		{
			name: "no HTML escaping",
			raw:  `{"html":"<b>` + strings.Repeat("x", 50) + `</b>"}`, lim: DigestLimits{MaxBytes: 50, MaxItems: 5, MaxString: 20},
			want: `{"html":"<b>xxxxxxxxxxxxxxxxx… [37 more bytes]"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Digest(json.RawMessage(tt.raw), tt.lim)
			if string(got) != tt.want {
				t.Errorf("Digest =\n %s\nwant\n %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("Digest is not valid JSON: %s", got)
			}
			if tt.lim.MaxBytes > 0 && len(got) > tt.lim.MaxBytes && tt.name != "nothing fits" {
				t.Errorf("Digest has %d bytes, over %d", len(got), tt.lim.MaxBytes)
			}
		})
	}
}

func FuzzDigest(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,3,{"b":"cccccccccccccccccccccccccccc"}]}`, `[[[[[[1]]]]]]`, `"x"`, `{`, `null`} {
		f.Add([]byte(s), 20)
	}
	f.Fuzz(func(t *testing.T, raw []byte, maxBytes int) {
		maxBytes = max(maxBytes%200, 1)
		got := Digest(raw, DigestLimits{MaxBytes: maxBytes, MaxItems: 4, MaxString: 20})
		if !json.Valid(got) {
			t.Fatalf("Digest(%q) = %q, not JSON", raw, got)
		}
	})
}
