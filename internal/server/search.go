package server

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"strategist/internal/store"
)

// maxQuery is the longest search accepted, in characters.
const maxQuery = 200

// searchLimit is how many conversations a search returns at most.
const searchLimit = 100

// conversationHit is a conversation found by a search: its relevance and an
// extract of the best-matching text (its title, a message or its step
// names), with the words that matched.
type conversationHit struct {
	store.Conversation
	Rank       float32  `json:"rank"`
	Snippet    string   `json:"snippet"`
	Highlights []string `json:"highlights"`
}

// searchQuery reads the q parameter: "" lists everything.
func searchQuery(c echo.Context) (string, error) {
	q := strings.TrimSpace(c.QueryParam("q"))
	if utf8.RuneCountInString(q) > maxQuery {
		return "", badRequest("the search must be at most " + strconv.Itoa(maxQuery) + " characters")
	}
	return q, nil
}

// searchConversations runs the caller's search over their conversations.
func (s *Server) searchConversations(c echo.Context, q string) ([]conversationHit, error) {
	found, err := s.cfg.Store.SearchConversations(c.Request().Context(), userID(c), q, searchLimit)
	if err != nil {
		return nil, err
	}
	hits := make([]conversationHit, 0, len(found))
	for _, f := range found {
		h := conversationHit{Conversation: f.Conversation, Rank: f.Rank, Highlights: []string{}}
		var b strings.Builder
		for _, p := range store.HeadlineParts(f.Headline) {
			b.WriteString(p.Text)
			if p.Match {
				h.Highlights = append(h.Highlights, p.Text)
			}
		}
		h.Snippet = b.String()
		hits = append(hits, h)
	}
	return hits, nil
}
