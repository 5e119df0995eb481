package server

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/web"
)

// static serves the embedded assets. Vendored libraries are versioned by
// file name and cached for a year; our own CSS and script are revalidated
// (ETag-free but short-lived) so a new release shows at once.
func (s *Server) static() echo.HandlerFunc {
	sub, err := fs.Sub(web.Static, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	return func(c echo.Context) error {
		p := c.Request().URL.Path
		if strings.Contains(p, "/vendor/") {
			c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			c.Response().Header().Set("Cache-Control", "public, max-age=300")
		}
		files.ServeHTTP(c.Response(), c.Request())
		return nil
	}
}
