package sites

import (
	"strategist/internal/catalog/wdk"
)

// liveOrder is the order live sites are offered in: the component sites
// researchers use most first, the portal last.
var liveOrder = []string{
	"plasmodb", "toxodb", "cryptodb", "fungidb", "tritrypdb", "vectorbase", "hostdb",
	"giardiadb", "amoebadb", "microsporidiadb", "piroplasmadb", "trichdb", "veupathdb",
}

// WDKSites returns the live sites for the WDK client, with their live ids
// ("plasmodb-live", ...). A non-empty baseURL replaces every site's own
// (tests and fakes).
func WDKSites(baseURL string) []wdk.Site {
	byID := map[string]wdk.Site{}
	for _, s := range wdk.DefaultSites() {
		byID[s.ID] = s
	}
	out := make([]wdk.Site, 0, len(liveOrder))
	for _, id := range liveOrder {
		s, ok := byID[id]
		if !ok {
			continue
		}
		s.ID = id + LiveSuffix
		if baseURL != "" {
			s.BaseURL = baseURL
		}
		out = append(out, s)
	}
	return out
}
