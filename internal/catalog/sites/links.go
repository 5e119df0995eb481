package sites

import (
	"net/url"
	"strings"

	"strategist/internal/catalog/wdk"
)

// GenePage is where a gene opens on the VEuPathDB site a conversation is
// bound to, and that site's name. The offline snapshot links to the live
// site it was exported from, whose record may have moved on since 2017; a
// live site links to the real site even when its WDK calls go to a mirror
// or a test double (STRATEGIST_WDK_BASE_URL). An unknown site gives "".
func GenePage(siteID, geneID string) (pageURL, siteName string) {
	id := strings.TrimSuffix(siteID, LiveSuffix)
	for _, s := range wdk.DefaultSites() {
		if s.ID == id {
			app := strings.TrimSuffix(s.BaseURL, "/service")
			return app + "/app/record/gene/" + url.PathEscape(geneID), s.DisplayName
		}
	}
	return "", ""
}
