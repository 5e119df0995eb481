// Command benchtable reads `go test -bench` output on stdin and prints one
// Markdown table of Strategist's figures: each measured value beside the
// floor measured in the same run and their ratio. Benchmarks report floors
// as "floor-<metric>" and ratios as "ratio-<quantile>" (for example p50-ms,
// floor-p50-ms, ratio-p50); every other custom metric is printed as it is.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// row is one figure of one benchmark.
type row struct {
	bench, metric string
	value         float64
	floor, ratio  *float64
}

// parse reads benchmark result lines: name, iterations, then value-unit
// pairs. Standard metrics (ns/op, B/op, allocs/op) are left out unless a
// benchmark reports nothing else.
func parse(r io.Reader) ([]row, error) {
	var rows []row
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		metrics := map[string]float64{}
		var order []string
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q: %w", name, f[i], err)
			}
			metrics[f[i+1]] = v
			order = append(order, f[i+1])
		}
		custom := false
		for _, m := range order {
			if m != "ns/op" && m != "B/op" && m != "allocs/op" {
				custom = true
			}
		}
		for _, m := range order {
			if strings.HasPrefix(m, "floor-") || strings.HasPrefix(m, "ratio-") {
				continue
			}
			if custom && (m == "ns/op" || m == "B/op" || m == "allocs/op") {
				continue
			}
			rw := row{bench: name, metric: m, value: metrics[m]}
			if v, ok := metrics["floor-"+m]; ok {
				rw.floor = &v
			}
			if v, ok := metrics["ratio-"+strings.SplitN(m, "-", 2)[0]]; ok && rw.floor != nil {
				rw.ratio = &v
			}
			rows = append(rows, rw)
		}
	}
	return rows, sc.Err()
}

func format(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| figure | value | floor (same run) | ratio |")
	fmt.Fprintln(w, "|---|---|---|---|")
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, r := range rows {
		floor, ratio := "—", "—"
		if r.floor != nil {
			floor = num(*r.floor) + " " + r.metric
		}
		if r.ratio != nil {
			ratio = fmt.Sprintf("%.2f×", *r.ratio)
		}
		fmt.Fprintf(w, "| %s %s | %s %s | %s | %s |\n", r.bench, r.metric, num(r.value), r.metric, floor, ratio)
	}
}

func main() {
	rows, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if len(rows) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no benchmark results on stdin")
		os.Exit(1)
	}
	format(os.Stdout, rows)
}
