package pgtest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Floor measures the physical floor of a durable write on pool: one bare
// one-row INSERT committed on its own (one round trip and one WAL flush).
// Benchmarks of write paths take samples of it in the same run as their own
// measurements and report their latency as a ratio to it, so that numbers
// from a loaded machine stay comparable.
type Floor struct {
	pool    *pgxpool.Pool
	samples []time.Duration
}

const floorTableSQL = `CREATE TABLE IF NOT EXISTS bench_floor (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`

// NewFloor creates the floor's table on pool.
func NewFloor(tb testing.TB, pool *pgxpool.Pool) *Floor {
	tb.Helper()
	if _, err := pool.Exec(context.Background(), floorTableSQL); err != nil {
		tb.Fatalf("pgtest: floor table: %v", err)
	}
	f := &Floor{pool: pool}
	f.Sample(tb, 5) // warm the connection and the statement cache
	f.samples = f.samples[:0]
	return f
}

// Sample commits n bare one-row inserts, one after another, and keeps their
// latencies. It may be called from a goroutine of the benchmark (a failure
// is reported with Errorf), but not from two at once.
func (f *Floor) Sample(tb testing.TB, n int) {
	tb.Helper()
	for range n {
		start := time.Now()
		if err := f.Commit(context.Background()); err != nil {
			tb.Errorf("pgtest: floor commit: %v", err)
			return
		}
		f.samples = append(f.samples, time.Since(start))
	}
}

// Warm commits once without keeping the latency. A benchmark that pauses
// between its writes calls it before Sample: the first commit after a pause
// pays for waking the machine up (on the development VM, 0.85-0.90 ms after
// 20 ms idle against 0.41-0.45 ms back to back), which the write measured
// right after the samples does not.
func (f *Floor) Warm(tb testing.TB) {
	tb.Helper()
	if err := f.Commit(context.Background()); err != nil {
		tb.Errorf("pgtest: floor commit: %v", err)
	}
}

// Commit commits one bare row: the floor's write, which Sample times and a
// benchmark's raw path (an HTTP handler that does nothing else) makes.
func (f *Floor) Commit(ctx context.Context) error {
	_, err := f.pool.Exec(ctx, `INSERT INTO bench_floor DEFAULT VALUES`)
	return err
}

// Report adds p50-ms, p99-ms, floor-p50-ms, floor-p99-ms, ratio-p50 and
// ratio-p99 to b for the latencies lat of the write path measured.
func (f *Floor) Report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 || len(f.samples) == 0 {
		return
	}
	p50, p99 := Quantile(lat, 0.50), Quantile(lat, 0.99)
	f50, f99 := Quantile(f.samples, 0.50), Quantile(f.samples, 0.99)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(f50), "floor-p50-ms")
	b.ReportMetric(ms(f99), "floor-p99-ms")
	b.ReportMetric(float64(p50)/float64(f50), "ratio-p50")
	b.ReportMetric(float64(p99)/float64(f99), "ratio-p99")
}

// Quantile returns the q quantile of d (0 < q < 1), nearest rank.
func Quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
