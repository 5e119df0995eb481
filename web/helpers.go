package web

import (
	"net/http"
	"strconv"
)

// StatusTitle names an HTTP status for a page heading.
func StatusTitle(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "Error " + strconv.Itoa(status)
}
