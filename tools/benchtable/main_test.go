package main

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	in := `goos: linux
BenchmarkPostToTurnStart-2   	      10	  5000000 ns/op	         4.1 p50-ms	         9.0 p99-ms	         1.3 floor-p50-ms	         2.9 floor-p99-ms	         3.15 ratio-p50	         3.10 ratio-p99
BenchmarkAppend/50_turns-2   	       1	  1000 ns/op	     21000 events/s
BenchmarkFold-2              	    1000	      1200 ns/op	     300 B/op	       4 allocs/op
PASS
`
	rows, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	format(&b, rows)
	got := b.String()
	for _, want := range []string{
		"| PostToTurnStart p50-ms | 4.1 p50-ms | 1.3 p50-ms | 3.15× |",
		"| PostToTurnStart p99-ms | 9 p99-ms | 2.9 p99-ms | 3.10× |",
		"| Append/50_turns events/s | 21000 events/s | — | — |",
		"| Fold ns/op | 1200 ns/op | — | — |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "floor-p50-ms |") || strings.Contains(got, "PostToTurnStart ns/op") {
		t.Errorf("floors, ratios and ns/op of a benchmark with its own figures are not rows:\n%s", got)
	}
}
