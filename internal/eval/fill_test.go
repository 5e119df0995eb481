package eval

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
)

var fill = flag.String("fill", "", "a case file whose counts TestFill writes from the raw data")

// TestFill writes each case's count into the case file named by -fill,
// computed from the raw data by this package's reader and tree evaluator
// (never by the product), keeping comment lines as they are:
//
//	go test ./internal/eval -run TestFill -fill $PWD/internal/eval/testdata/fresh.jsonl
func TestFill(t *testing.T) {
	if *fill == "" {
		t.Skip("no -fill file")
	}
	d := load(t)
	b, err := os.ReadFile(*fill)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for line := range strings.Lines(string(b)) {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//") {
			out.WriteString(line)
			continue
		}
		var c Case
		if err := json.Unmarshal([]byte(trimmed), &c); err != nil {
			t.Fatal(err)
		}
		c.Count = nil
		e, err := c.Expect(d)
		if err != nil {
			t.Fatal(err)
		}
		if e.Tree != nil {
			n := e.Count
			c.Count = &n
		}
		j, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(j)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(*fill, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
