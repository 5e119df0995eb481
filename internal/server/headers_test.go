package server_test

import (
	"net/http"
	"strings"
	"testing"

	"strategist/internal/config"
)

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")
	for _, r := range []struct {
		name string
		resp response
	}{
		{"sign-in page", e.page("/signin", nil)},
		{"redirect", e.page("/", nil)},
		{"API", e.do("GET", "/api/v1/conversations", token, "")},
		{"API error", e.do("GET", "/api/v1/conversations", "", "")},
		{"missing page", e.page("/no/such/page", nil)},
		{"static file", e.page("/static/app.js", nil)},
	} {
		h := r.resp.header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %q", r.name, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP allows inline code: %q", r.name, csp)
		}
		for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin"} {
			if h.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", r.name, k, h.Get(k), v)
			}
		}
	}
}

// TestDevModeRefusesForeignHost: in dev mode anything that reaches the
// port acts as the implicit user, so a page on a domain that resolves to
// 127.0.0.1 (DNS rebinding) must be refused by its Host header.
func TestDevModeRefusesForeignHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthDev)
	port := e.srv.URL[strings.LastIndex(e.srv.URL, ":")+1:]
	for host, want := range map[string]int{
		"127.0.0.1:" + port:          http.StatusOK,
		"localhost:" + port:          http.StatusOK,
		"LOCALHOST.:" + port:         http.StatusOK,
		"[::1]:" + port:              http.StatusOK,
		"rebind.example.org:" + port: http.StatusMisdirectedRequest,
		"127.0.0.1.nip.io:" + port:   http.StatusMisdirectedRequest,
		"192.168.1.20:" + port:       http.StatusMisdirectedRequest,
	} {
		req, err := http.NewRequest("GET", e.srv.URL+"/api/v1/conversations", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		if r := e.send(req); r.status != want {
			t.Errorf("Host %s = %d %s, want %d", host, r.status, r.body, want)
		}
	}
	// Local accounts do not depend on the Host.
	l := newEnv(t, config.AuthLocal)
	req, _ := http.NewRequest("GET", l.srv.URL+"/healthz", nil)
	req.Host = "strategist.example.org"
	if r := l.send(req); r.status != http.StatusOK {
		t.Errorf("local accounts with a public Host = %d", r.status)
	}
}
