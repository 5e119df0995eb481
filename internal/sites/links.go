package sites

import (
	"net/url"
	"strings"

	"strategist/internal/catalog/wdk"
)

// GenePages says where the genes of a conversation bound to siteID open
// on its VEuPathDB site, and that site's name. The offline snapshot links
// to the live site it was exported from, whose record may have moved on
// since 2017; a live site links to the real site even when its WDK calls go
// to a mirror or a test double (STRATEGIST_WDK_BASE_URL). An unknown site
// gives nil.
func GenePages(siteID string) (page func(geneID string) string, siteName string) {
	id := strings.TrimSuffix(siteID, LiveSuffix)
	for _, s := range wdk.DefaultSites() {
		if s.ID == id {
			app := strings.TrimSuffix(s.BaseURL, "/service") + "/app/record/gene/"
			return func(geneID string) string { return app + url.PathEscape(geneID) }, s.DisplayName
		}
	}
	return nil, ""
}
