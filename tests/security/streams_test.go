package security

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

const metricsToken = "security-metrics-token"

// memory is what the server process holds at one moment.
type memory struct {
	rss, heapInuse, heapIdle, heapReleased int64
	goroutines                             int64
}

func (m memory) String() string {
	return fmt.Sprintf("RSS %d MiB, heap in use %d MiB, idle %d MiB (released %d MiB), %d goroutines",
		m.rss>>20, m.heapInuse>>20, m.heapIdle>>20, m.heapReleased>>20, m.goroutines)
}

// memory reads the process's resident memory (VmRSS) and its Go runtime's
// figures from /metrics.
func (s *server) memory(t *testing.T) memory {
	t.Helper()
	var m memory
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.PID()), "status"))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			m.rss = kb << 10
		}
	}
	req, err := http.NewRequest("GET", s.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(raw)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("metrics = %d (%v), Content-Encoding %q, %q", resp.StatusCode, err, resp.Header.Get("Content-Encoding"), body[:min(len(body), 200)])
	}
	for line := range strings.SplitSeq(body, "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			m.goroutines = int64(f)
		case "go_memstats_heap_inuse_bytes":
			m.heapInuse = int64(f)
		case "go_memstats_heap_idle_bytes":
			m.heapIdle = int64(f)
		case "go_memstats_heap_released_bytes":
			m.heapReleased = int64(f)
		}
	}
	return m
}

// history gives a conversation n logged events of about 2 KB each (a long
// conversation's worth), which every stream replays.
func (s *server) history(t *testing.T, conv string, n int) {
	t.Helper()
	db, err := store.New(pgtest.Connect(t, s.dbURL))
	if err != nil {
		t.Fatal(err)
	}
	batch := make([]store.NewEvent, n)
	for i := range batch {
		batch[i] = store.NewEvent{ConversationID: conv, Type: "usage",
			Payload: []byte(fmt.Sprintf(`{"n":%d,"note":%q}`, i+1, strings.Repeat("x", 2000)))}
	}
	if _, err := db.AppendEvents(context.Background(), "security-test", batch); err != nil {
		t.Fatal(err)
	}
}

// TestStreamFloodIsCapped: 1,500 event streams of a conversation with a
// long history asked for at once with one API token (from ten loopback addresses, under their connection cap) get
// at most the token's 20 streams; the rest are 429 with Retry-After. The
// server's memory stays bounded while they are held, and once they close
// its goroutines are back where they started. The figures are logged for
// docs/BENCHMARKS.md (run with -v; STRATEGIST_BINARY runs an older build).
func TestStreamFloodIsCapped(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{"STRATEGIST_REQUEST_RATE": "100000", "STRATEGIST_METRICS_TOKEN": metricsToken})
	token, _ := s.user(t, "ada@example.org")
	conv := s.conversation(t, token)
	s.history(t, conv, 500)
	before := s.memory(t)

	const attempts, addrs, atOnce = 1500, 10, 100
	var (
		mu     sync.Mutex
		counts = map[int]int{}
		open   []io.Closer
		wg     sync.WaitGroup
		slots  = make(chan struct{}, atOnce)
	)
	start := time.Now()
	for i := range attempts {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.3." + strconv.Itoa(2+i%addrs))}, Timeout: 5 * time.Second}
			client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
			req, err := http.NewRequest("GET", s.URL+"/api/v1/conversations/"+conv+"/events", nil)
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("stream %d: %v", i, err)
				return
			}
			code := resp.StatusCode
			if code == http.StatusOK {
				if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
					t.Errorf("stream %d: first line: %v", i, err)
				}
			} else {
				_, _ = io.Copy(io.Discard, resp.Body)
				if resp.Header.Get("Retry-After") == "" {
					code = -code // counted apart: a refusal without Retry-After
				}
				resp.Body.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			counts[code]++
			if code == http.StatusOK {
				open = append(open, resp.Body)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	during := s.memory(t)
	for _, c := range open {
		c.Close()
	}
	// Wait (bounded) for the server to see every stream end.
	var after memory
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if after = s.memory(t); after.goroutines <= before.goroutines+20 || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(5 * time.Second) // what the runtime gives back on its own meanwhile
	later := s.memory(t)
	t.Logf("%d stream attempts with one token in %v: answers %v", attempts, took.Round(time.Millisecond), counts)
	t.Logf("before: %v", before)
	t.Logf("during: %v", during)
	t.Logf("after:  %v", after)
	t.Logf("+5 s:   %v", later)

	if counts[http.StatusOK] > 20 {
		t.Errorf("%d streams opened with one token, want at most 20", counts[http.StatusOK])
	}
	if counts[http.StatusOK]+counts[http.StatusTooManyRequests] != attempts {
		t.Errorf("answers %v, want only 200 and 429 with Retry-After", counts)
	}
	if after.goroutines > before.goroutines+20 {
		t.Errorf("%d goroutines after the streams closed, %d before", after.goroutines, before.goroutines)
	}
	if grew := during.rss - before.rss; grew > 128<<20 {
		t.Errorf("RSS grew by %d MiB with the streams open, want it bounded (< 128 MiB)", grew>>20)
	}
}
