package server

import (
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/internal/config"
)

// contentSecurityPolicy allows only the app's own scripts, styles and
// connections: no inline script or style, no framing, no plugins. The
// favicon is a data: URL.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets on every response what browsers need to contain a
// page: the content security policy, no framing, no MIME sniffing and no
// full URLs (conversation ids) in Referer headers to other sites.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		return next(c)
	}
}

// loopbackHostOnly refuses requests whose Host is not a loopback name. Dev
// mode's implicit user is reachable by anything on this machine; checking
// the Host stops a web page from reaching it through a domain that
// resolves to 127.0.0.1 (DNS rebinding).
func loopbackHostOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !isLoopbackHost(c.Request().Host) {
			return &APIError{Status: http.StatusMisdirectedRequest, Code: CodeForbidden,
				Message: "dev mode answers only to localhost, 127.0.0.1 or [::1]; open Strategist at one of those addresses"}
		}
		return next(c)
	}
}

// isLoopbackHost reports a Host header naming this machine: the loopback
// names config.IsLoopback accepts for the listen address, with or without a
// port, in any case, with or without a trailing dot.
func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	return config.IsLoopback(net.JoinHostPort(host, "0"))
}
