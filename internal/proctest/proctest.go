// Package proctest runs the strategist server as a real process for tests
// that must see it as its users and attackers do: over TCP, with its own
// memory, killed with SIGKILL like a crash.
package proctest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var binary struct {
	once sync.Once
	path string
	err  error
}

// Binary builds the strategist command once per test process and returns
// its path; STRATEGIST_BINARY names a binary to use instead (to run the
// suites against another build).
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("STRATEGIST_BINARY"); p != "" {
		return p
	}
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "strategist-bin-*")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "strategist")
		out, err := exec.Command("go", "build", "-trimpath", "-o", binary.path, "strategist/cmd/server").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// FreeAddr is a loopback address nothing listens on now, for a client
// that must find nobody there. A server should not be told to bind it
// later (see spawn): by then it may be taken.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Proc is a strategist server running as its own process.
type Proc struct {
	URL  string
	Logs *Logs
	t    testing.TB
	cmd  *exec.Cmd
	done chan error
}

// Start runs `strategist serve` on a free address with env added to this
// process's environment, and waits until it is ready. The test's end kills
// it.
func Start(t testing.TB, env map[string]string) *Proc {
	t.Helper()
	return StartAll(t, env)[0]
}

// StartAll runs one `strategist serve` per env, all at once, and waits
// until every one is ready: servers sharing a database start in the time
// of one. The test's end kills them.
func StartAll(t testing.TB, envs ...map[string]string) []*Proc {
	t.Helper()
	procs := make([]*Proc, len(envs))
	for i, env := range envs {
		procs[i] = spawn(t, env)
	}
	for _, p := range procs {
		p.waitReady()
	}
	return procs
}

// spawn starts a server without waiting for it. The server listens on a
// port the kernel picks for it (STRATEGIST_ADDR=127.0.0.1:0) and waitReady
// reads the port from its "strategist ready" log line. A port found free
// here and bound by the child later could be taken in between: every
// outgoing connection of a test running in parallel draws its local port
// from the same range, and the child would then fail to start or, worse,
// the test would talk to another test's server. The child logs at info
// (env may ask for debug) so that the line is written.
func spawn(t testing.TB, env map[string]string) *Proc {
	t.Helper()
	switch strings.ToLower(env["STRATEGIST_LOG_LEVEL"]) {
	case "", "info", "debug":
	default:
		t.Fatalf("proctest: STRATEGIST_LOG_LEVEL=%s hides the line that gives the server's address; use info or debug", env["STRATEGIST_LOG_LEVEL"])
	}
	cmd := exec.Command(Binary(t), "serve")
	cmd.Env = append(os.Environ(), "STRATEGIST_ADDR=127.0.0.1:0", "STRATEGIST_LOG_LEVEL=info")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &Proc{Logs: &Logs{}, t: t, cmd: cmd, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.Logs, p.Logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(p.Kill)
	return p
}

// waitReady waits until the server has logged its address and answers
// /readyz there with 200.
func (p *Proc) waitReady() {
	p.t.Helper()
	for range 600 {
		if p.URL == "" {
			p.URL = p.Logs.url("strategist ready")
		}
		if p.URL != "" {
			resp, err := http.Get(p.URL + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return
				}
			}
		}
		select {
		case err := <-p.done:
			p.t.Fatalf("server exited: %v\n%s", err, p.Logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	p.t.Fatalf("server never ready\n%s", p.Logs.String())
}

// LoggedURL waits up to ten seconds for the server to log a line whose
// message is msg and returns the URL the line gives: "metrics served"
// names where STRATEGIST_METRICS_ADDR=127.0.0.1:0 put the metrics.
func (p *Proc) LoggedURL(msg string) string {
	p.t.Helper()
	for range 500 {
		if u := p.Logs.url(msg); u != "" {
			return u
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("the server never logged %q\n%s", msg, p.Logs.String())
	return ""
}

// PID is the server's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Kill ends the process at once (SIGKILL), as a crash would.
func (p *Proc) Kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	p.t.Logf("server killed: %v", <-p.done)
}

// Terminate stops the process as a deploy does (SIGTERM) and waits for it
// to exit, for up to a minute; then it is killed.
func (p *Proc) Terminate() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.t.Logf("server stopped: %v", err)
	case <-time.After(time.Minute):
		p.t.Errorf("server still running a minute after SIGTERM; killing it")
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		p.t.Logf("server killed: %v", <-p.done)
	}
}

// Logs collects a server's output; safe for concurrent writes.
type Logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// loggedURL finds the URL in a text or JSON log line's url attribute.
var loggedURL = regexp.MustCompile(`"?url"?[=:]"?(http://[^\s"]+)`)

// url returns the URL of the first line logged with message msg, "" if
// none was logged yet. The message is quoted in JSON, and in text when it
// has a space; a text message of one word is not.
func (l *Logs) url(msg string) string {
	for line := range strings.Lines(l.String()) {
		if !strings.Contains(line, `"`+msg+`"`) && !strings.Contains(line, "msg="+msg+" ") {
			continue
		}
		if m := loggedURL.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	return ""
}

func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
