package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is a throwaway Postgres cluster in a temporary directory.
type cluster struct {
	dir    string
	bindir string
	url    string
	opts   string // the server's options (pg_ctl -o)
	cred   *syscall.Credential
}

// startCluster runs initdb and pg_ctl start on a free port. Unless durable,
// the server does not flush its writes (fsync, synchronous_commit and full
// page writes off): fast, and a crash of the server may lose what it
// committed last, which the tests sharing it never cause.
func startCluster(ctx context.Context, durable bool) (*cluster, error) {
	bindir, err := findBindir()
	if err != nil {
		return nil, err
	}
	c := &cluster{bindir: bindir}
	dir, err := os.MkdirTemp("", "strategist-pgtest-*")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	c.dir = dir
	if os.Geteuid() == 0 {
		// initdb refuses to run as root; the cluster belongs to postgres.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run(ctx, "initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"); err != nil {
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", port, dir)
	if !durable {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	c.opts = opts
	if out, err := c.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %w: %s", err, out)
	}
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c, nil
}

func (c *cluster) stop() {
	_, _ = c.run(context.Background(), "pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	_ = os.RemoveAll(c.dir)
}

func (c *cluster) run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bindir, name), args...)
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	cmd.Dir = c.dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// findBindir locates initdb: pg_config, then Debian's versioned directories,
// then PATH.
func findBindir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) > 0 {
		return filepath.Dir(matches[len(matches)-1]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no Postgres server binaries (initdb) found; install postgresql or set DATABASE_URL")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Cluster is a PostgreSQL server of one test's own, started from the
// machine's server binaries in a temporary directory, which the test can
// treat as an operator or a failure would: restart it, pause every one of
// its processes (a stall: connections open, nothing answers) and let them
// go on. It is stopped and removed when the test ends. Only the
// reliability runs use it; the other tests share the package's server. It
// keeps what it committed across a crash (an immediate shutdown), as a
// production server does.
type Cluster struct {
	c    *cluster
	opts string
	url  string
}

// NewCluster starts a cluster with a database named strategist (empty: a
// server migrates it as it starts) and returns it. Without server
// binaries the test fails.
func NewCluster(tb testing.TB) *Cluster {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := startCluster(ctx, true)
	if err != nil {
		if c != nil && c.dir != "" {
			_ = os.RemoveAll(c.dir)
		}
		tb.Fatalf("pgtest: cluster: %v", err)
	}
	cl := &Cluster{c: c, opts: c.opts, url: withDatabase(c.url, "strategist")}
	tb.Cleanup(func() {
		// A cluster a test left paused is let go on so that it can stop;
		// one that is not paused has nothing to resume.
		_ = cl.signal(syscall.SIGCONT)
		c.stop()
	})
	conn, err := pgx.Connect(ctx, c.url)
	if err != nil {
		tb.Fatalf("pgtest: cluster: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE strategist"); err != nil {
		tb.Fatalf("pgtest: cluster: create database: %v", err)
	}
	return cl
}

// URL is the strategist database's connection URL.
func (cl *Cluster) URL() string { return cl.url }

// Restart stops the server with pg_ctl's shutdown mode ("fast": sessions
// terminated, a clean shutdown; "immediate": every process quits at once,
// as in a crash) and starts it again, waiting until it takes connections.
func (cl *Cluster) Restart(tb testing.TB, mode string) {
	tb.Helper()
	data := filepath.Join(cl.c.dir, "data")
	if out, err := cl.c.run(context.Background(), "pg_ctl", "-D", data, "-m", mode, "-w", "stop"); err != nil {
		tb.Fatalf("pgtest: cluster: pg_ctl stop -m %s: %v: %s", mode, err, out)
	}
	if out, err := cl.c.run(context.Background(), "pg_ctl", "-D", data, "-l", filepath.Join(cl.c.dir, "log"), "-o", cl.opts, "-w", "start"); err != nil {
		tb.Fatalf("pgtest: cluster: pg_ctl start: %v: %s", err, out)
	}
}

// Pause stops every process of the server (SIGSTOP): its connections stay
// open and nothing answers, as when its machine stalls, until Continue.
func (cl *Cluster) Pause(tb testing.TB) {
	tb.Helper()
	if err := cl.signal(syscall.SIGSTOP); err != nil {
		tb.Fatalf("pgtest: cluster: pause: %v", err)
	}
}

// Continue lets the processes Pause stopped go on (SIGCONT).
func (cl *Cluster) Continue(tb testing.TB) {
	tb.Helper()
	if err := cl.signal(syscall.SIGCONT); err != nil {
		tb.Fatalf("pgtest: cluster: continue: %v", err)
	}
}

// signal sends sig to the postmaster and to each of its children, by
// process id.
func (cl *Cluster) signal(sig syscall.Signal) error {
	pidFile, err := os.ReadFile(filepath.Join(cl.c.dir, "data", "postmaster.pid"))
	if err != nil {
		return err
	}
	postmaster, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(pidFile), "\n", 2)[0]))
	if err != nil {
		return fmt.Errorf("postmaster.pid: %w", err)
	}
	pids := []int{postmaster}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: the command may hold spaces, so the
		// fields are read after its closing parenthesis.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(postmaster) {
			if pid, err := strconv.Atoi(strings.Fields(s)[0]); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("signal %d: %w", pid, err)
		}
	}
	return nil
}
