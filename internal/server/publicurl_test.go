package server_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/server"
)

// poisoned are the request headers a client (or a cache in front of the
// server) could use to make the server name another host.
var poisoned = [][]string{
	{"Host", "evil.example"},
	{"X-Forwarded-Host", "evil.example"},
	{"X-Forwarded-Proto", "gopher"},
	{"X-Forwarded-Proto", "https", "X-Forwarded-Host", "evil.example:443"},
	{"Forwarded", "host=evil.example;proto=https"},
	{"X-Forwarded-Ssl", "on", "X-Url-Scheme", "https"},
}

func poisonedEnv(t *testing.T, public string, opts ...func(*server.Config)) *env {
	t.Helper()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return newEnvWith(t, config.AuthLocal, cat, append([]func(*server.Config){func(c *server.Config) { c.PublicURL = public }}, opts...)...)
}

// send sends a request with headers (pairs; "Host" sets the Host line).
func (e *env) sendWith(method, path, token, body string, headers ...string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	return e.send(req)
}

// TestAbsoluteURLsUseThePublicURL: the agent card's interfaces and a
// share link's address are on the configured public URL whatever Host,
// X-Forwarded-Host or X-Forwarded-Proto a request sends: a poisoned card
// in a shared cache would send A2A clients' tokens elsewhere.
func TestAbsoluteURLsUseThePublicURL(t *testing.T) {
	t.Parallel()
	const public = "https://strategist.example.org"
	e := poisonedEnv(t, public)
	_, token := e.user("ada@example.org")
	id := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`).json(t)["id"].(string)
	for _, h := range append([][]string{nil}, poisoned...) {
		r := e.sendWith("GET", "/.well-known/agent-card.json", "", "", h...)
		var card struct {
			SupportedInterfaces []struct{ URL string }
			Provider            struct{ URL string }
		}
		if err := json.Unmarshal(r.body, &card); err != nil || r.status != http.StatusOK || len(card.SupportedInterfaces) == 0 {
			t.Fatalf("agent card with %q = %d %s", h, r.status, r.body)
		}
		for _, in := range card.SupportedInterfaces {
			if !strings.HasPrefix(in.URL, public+"/") {
				t.Errorf("agent card with %q: interface %s, want it under %s", h, in.URL, public)
			}
		}
		if card.Provider.URL != public {
			t.Errorf("agent card with %q: provider %s, want %s", h, card.Provider.URL, public)
		}
		r = e.sendWith("POST", "/api/v1/conversations/"+id+"/share", token, `{"public":true}`, h...)
		var share struct{ URL, Token string }
		if err := json.Unmarshal(r.body, &share); err != nil || r.status != http.StatusCreated {
			t.Fatalf("share with %q = %d %s", h, r.status, r.body)
		}
		if want := public + "/shared/" + share.Token; share.URL != want {
			t.Errorf("share with %q: URL %s, want %s", h, share.URL, want)
		}
	}
}

// TestForwardedForOnlyFromTrustedProxies: a client's address is the
// connection's unless the connection comes from a configured proxy; then
// it is the address the proxy forwards. The per-address request limit
// shows which one the server used.
func TestForwardedForOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	for _, tt := range []struct {
		name    string
		proxies []*net.IPNet
		limited bool
	}{
		{"no proxy trusted", nil, true},
		{"loopback trusted", []*net.IPNet{loopback}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := poisonedEnv(t, "http://strategist.test", func(c *server.Config) {
				c.RequestRate, c.TrustedProxies = 1, tt.proxies
			})
			limited := false
			for i := range 20 {
				r := e.sendWith("GET", "/healthz", "", "", "X-Forwarded-For", "198.51.100."+string(rune('0'+i%10))+string(rune('0'+i/10)), "X-Real-IP", "198.51.100.7")
				limited = limited || r.status == http.StatusTooManyRequests
			}
			if limited != tt.limited {
				t.Errorf("20 requests from one connection address with 20 forwarded ones: limited = %v, want %v", limited, tt.limited)
			}
		})
	}
}
