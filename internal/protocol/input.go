package protocol

import (
	"context"
	"strings"
	"unicode/utf8"

	"strategist/internal/catalog"
	"strategist/internal/sites"
	"strategist/internal/tool"
)

// MaxTitle is the longest conversation title accepted, in characters.
const MaxTitle = 200

// IsUUID reports the canonical 8-4-4-4-12 hex form.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			c := s[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// Quote quotes s for a message, cut to 60 characters.
func Quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return `"` + s + `"`
}

// CheckTitle trims a conversation's title and refuses an empty or too long
// one (422 VALIDATION_ERROR).
func CheckTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", ValidationError("title must not be empty", map[string]string{"title": "empty"})
	}
	if utf8.RuneCountInString(title) > MaxTitle {
		return "", ValidationError("title must be at most 200 characters", map[string]any{"title": "too long", "max": MaxTitle})
	}
	return title, nil
}

// TitleFrom makes a new conversation's title from its first message (the
// planner renames it once it knows the goal).
func TitleFrom(msg string) string {
	t := strings.Join(strings.Fields(msg), " ")
	if utf8.RuneCountInString(t) > 80 {
		r := []rune(t)
		t = strings.TrimSpace(string(r[:79])) + "…"
	}
	return t
}

// SiteStatuses reports the sites' states for a user (*sites.Registry).
type SiteStatuses interface {
	Statuses(ctx context.Context, userID string) ([]sites.Status, error)
}

// UsableSite refuses, as a tool error, a site the catalog does not know or
// the caller cannot use (a live site without their VEuPathDB API key).
// statuses nil means every site of cat is available to everyone.
func UsableSite(ctx context.Context, cat catalog.Catalog, statuses SiteStatuses, userID, site string) error {
	var known []string
	if statuses != nil {
		all, err := statuses.Statuses(ctx, userID)
		if err != nil {
			return err
		}
		for _, st := range all {
			if st.ID == site {
				if !st.Available {
					return &tool.ToolError{Code: CodeSiteAccount, Message: st.Name + " is not available: " + st.Message}
				}
				return nil
			}
			known = append(known, st.ID)
		}
	} else {
		list, err := cat.Sites(ctx)
		if err != nil {
			return err
		}
		for _, x := range list {
			if x.ID == site {
				return nil
			}
			known = append(known, x.ID)
		}
	}
	return &tool.ToolError{Code: CodeNotFound, Message: "unknown site " + Quote(site), Details: map[string]any{"known": known}}
}
