package english

import "testing"

func TestFollowUps(t *testing.T) {
	tests := []struct {
		in             string
		follow         FollowUp
		part, replaced string
		root           string
	}{
		{"now also exclude chromosome 5", FollowExclude, "location:5", "<nil>", "MINUS(taxon, location:5)"},
		{"Remove those on chromosome 14", FollowExclude, "location:14", "<nil>", "MINUS(taxon, location:14)"},
		{"only those on chromosome 14", FollowRestrict, "location:14", "<nil>", "location:14"},
		{"keep only the tRNA genes", FollowRestrict, "term:tRNA", "<nil>", "term:tRNA"},
		{"also add DNA replication genes", FollowAdd, "term:DNA replication", "<nil>", "term:DNA replication"},
		{"use proteolysis instead", FollowReplace, "term:proteolysis", "<nil>", "term:proteolysis"},
		{"replace chromosome 14 with 13", FollowReplace, "location:13", "location:14", "location:13"},
		{"make that chromosome 13 instead", FollowReplace, "location:13", "<nil>", "location:13"},
		{"chromosome 13 instead of chromosome 14", FollowReplace, "location:13", "location:14", "location:13"},
		{"undo that", FollowUndo, "<nil>", "<nil>", "<nil>"},
		{"actually, make that proteolysis", FollowReplace, "term:proteolysis", "<nil>", "term:proteolysis"},
		{"what about chromosome 7 instead?", FollowReplace, "location:7", "<nil>", "location:7"},
		{"intersect with chromosome 12", FollowRestrict, "location:12", "<nil>", "location:12"},
		{"how many are on chromosome 13?", FollowRestrict, "location:13", "<nil>", "location:13"},
		{"also include the TCA cycle", FollowAdd, "term:TCA cycle", "<nil>", "term:TCA cycle"},
		{"go back", FollowUndo, "<nil>", "<nil>", "<nil>"},
		{"what are these genes enriched for?", FollowEnrich, "<nil>", "<nil>", "<nil>"},
		{"GO enrichment of the result", FollowEnrich, "<nil>", "<nil>", "<nil>"},
		{"Now run an enrichment analysis", FollowEnrich, "<nil>", "<nil>", "<nil>"},
		{"which GO terms are over-represented?", FollowEnrich, "<nil>", "<nil>", "<nil>"},
		{"genes enriched in gametocytes", FollowNone, "<nil>", "<nil>", "term:enriched in gametocytes"},
		{"Test this strategy against my controls", FollowControls, "<nil>", "<nil>", "<nil>"},
		{"what are the recall and precision?", FollowControls, "<nil>", "<nil>", "<nil>"},
		{"score it against the control genes", FollowControls, "<nil>", "<nil>", "<nil>"},
		{"genes involved in cell cycle control", FollowNone, "<nil>", "<nil>", "term:cell cycle control"},
		{"start over: tRNA genes on chromosome 5", FollowStartOver, "INTERSECT(term:tRNA, location:5)", "<nil>", "INTERSECT(term:tRNA, location:5)"},
		{"DNA repair genes excluding chromosome 5", FollowNone, "<nil>", "<nil>", "MINUS(term:DNA repair, location:5)"},
		{"genes involved in translation", FollowNone, "<nil>", "<nil>", "term:translation"},
		// A correction of the message before replaces what it named.
		{"sorry, I meant protein folding", FollowReplace, "term:protein folding", "<nil>", "term:protein folding"},
		{"oops, I wanted chromosome 9 instead of chromosome 4", FollowReplace, "location:9", "location:4", "location:9"},
		{"no, I meant chromosome 11", FollowReplace, "location:11", "<nil>", "location:11"},
		{"sorry, tRNA genes but not on chromosome 2", FollowStartOver, "MINUS(term:tRNA, location:2)", "<nil>", "MINUS(term:tRNA, location:2)"},
		{"no genes on chromosome 5", FollowNone, "<nil>", "<nil>", "INTERSECT(term:no, location:5)"},
		// A return to the strategy before a change.
		{"revert to before the exclusion", FollowUndo, "<nil>", "<nil>", "<nil>"},
		{"go back to the version before chromosome 3 was removed", FollowUndo, "<nil>", "<nil>", "<nil>"},
		{"roll back to how it was before", FollowUndo, "<nil>", "<nil>", "<nil>"},
		{"bring back the last strategy", FollowUndo, "<nil>", "<nil>", "<nil>"},
		{"switch to DNA recombination instead", FollowReplace, "term:DNA recombination", "<nil>", "term:DNA recombination"},
		{"oops, chromosome 8, not 3", FollowReplace, "location:8", "location:3", "location:8"},
		{"sorry — protein folding, not proteolysis", FollowReplace, "term:protein folding", "term:proteolysis", "term:protein folding"},
		{"chromosome 2 must go too", FollowExclude, "location:2", "<nil>", "MINUS(taxon, location:2)"},
		{"no, scrap that", FollowUndo, "<nil>", "<nil>", "<nil>"},
		{"narrow them down to chromosome 6", FollowRestrict, "location:6", "<nil>", "location:6"},
		{"same, but also exclude chromosome 6", FollowExclude, "location:6", "<nil>", "MINUS(taxon, location:6)"},
	}
	for _, tt := range tests {
		p := Parse(tt.in)
		if p.Follow != tt.follow || p.Part.String() != tt.part || p.Replaced.String() != tt.replaced || p.Root.String() != tt.root {
			t.Errorf("Parse(%q) = %v part %s replaced %s root %s; want %v part %s replaced %s root %s", tt.in,
				p.Follow, p.Part, p.Replaced, p.Root, tt.follow, tt.part, tt.replaced, tt.root)
		}
	}
}
