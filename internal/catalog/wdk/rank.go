package wdk

import "strategist/internal/catalog/rank"

// searchIndex ranks a site's searches with the ranking the offline
// catalog uses too (package rank).
type searchIndex = rank.Index

// newSearchIndex indexes the searches a researcher may pick (internal ones,
// the boolean combine among them, are left out), in the site's order.
func newSearchIndex(list []SearchInfo) *searchIndex {
	docs := make([]rank.Doc, 0, len(list))
	for i := range list {
		s := &list[i]
		if !s.Internal() {
			docs = append(docs, rank.Doc{Search: s.summary(s.Kind()), Help: s.Help})
		}
	}
	return rank.New(docs)
}
