// Package web holds Strategist's browser pages: templ components rendered on
// the server and the static assets they use (hand-written CSS and script,
// htmx and its SSE extension vendored from npm).
package web

import "embed"

// Static holds the files served under /static/.
//
//go:embed static
var Static embed.FS
