package server

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/web"
)

// exportConversation is GET /api/v1/conversations/{id}/export?format=md|json:
// the conversation folded from its whole log, as an attachment.
func (s *Server) exportConversation(c echo.Context) error {
	format := c.QueryParam("format")
	if format == "" {
		format = "md"
	}
	if format != "md" && format != "json" {
		return badRequest(`format must be "md" or "json"`)
	}
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	proj, err := s.project(ctx, userID(c), conv, conv.LastEventSeq)
	if err != nil {
		return err
	}
	exp := web.NewExport(proj, time.Now())
	h := c.Response().Header()
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="strategist-%s.%s"`, conv.ID[:8], format))
	h.Set("Cache-Control", "no-store")
	if format == "json" {
		return c.JSON(http.StatusOK, exp)
	}
	return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", exp.Markdown())
}
