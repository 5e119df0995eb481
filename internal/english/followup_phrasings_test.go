package english

import "testing"

// TestFollowUpPhrasings: the ways researchers refine what they built.
func TestFollowUpPhrasings(t *testing.T) {
	tests := []struct {
		in             string
		follow         FollowUp
		part, replaced string
	}{
		{"remove chromosome 5 from that", FollowExclude, "location:5", "<nil>"},
		// A verb, the part, and the result named anywhere by a pronoun.
		{"boot chromosome 9 out of it", FollowExclude, "location:9", "<nil>"},
		{"chromosome 14 goes too", FollowExclude, "location:14", "<nil>"},
		{"widen it so chromosome 11 comes along", FollowAdd, "location:11", "<nil>"},
		{"then strip out whatever chromosomes 3 and 8 contribute", FollowExclude, "UNION(location:3, location:8)", "<nil>"},
		{"scratch the chromosome filter, whole genome", FollowExclude, "term:chromosome filter", "<nil>"},
		{"shave off whatever chromosome 2 contributes", FollowExclude, "location:2", "<nil>"},
		{"slot chromosome 7 into that too", FollowAdd, "location:7", "<nil>"},
		{"add genes involved in DNA repair to it", FollowAdd, "term:DNA repair", "<nil>"},
		{"tack the rRNA genes onto that", FollowAdd, "term:rRNA", "<nil>"},
		{"slim it down to what sits on chromosome 6", FollowRestrict, "location:6", "<nil>"},
		{"the snRNA genes on top of that", FollowAdd, "term:snRNA", "<nil>"},
		{"proteolysis alongside them", FollowAdd, "term:proteolysis", "<nil>"},
		{"go back to no chromosome filter", FollowExclude, "term:chromosome filter", "<nil>"},
		{"take out the ones on chromosome 3", FollowExclude, "location:3", "<nil>"},
		{"Can you exclude chromosomes 1 and 2 from the result?", FollowExclude, "UNION(location:1, location:2)", "<nil>"},
		{"filter to chromosome 12", FollowRestrict, "location:12", "<nil>"},
		{"narrow it down to chromosome 2", FollowRestrict, "location:2", "<nil>"},
		{"keep just chromosome 4", FollowRestrict, "location:4", "<nil>"},
		{"keep the chromosome 9 portion", FollowRestrict, "location:9", "<nil>"},
		{"keep chromosomes 6 and 7 and ditch the rest", FollowRestrict, "UNION(location:6, location:7)", "<nil>"},
		{"keep chromosomes 3 and 5 and drop the others", FollowRestrict, "UNION(location:3, location:5)", "<nil>"},
		{"of those, keep only what chromosome 13 carries", FollowRestrict, "location:13", "<nil>"},
		{"trim that to whatever chromosome 8 holds", FollowRestrict, "location:8", "<nil>"},
		{"lose whatever sits on chr 14", FollowExclude, "location:14", "<nil>"},
		{"chromosome 11 is unwanted too, take it away", FollowExclude, "location:11", "<nil>"},
		{"chuck in chromosome 8's too", FollowAdd, "location:8", "<nil>"},
		{"broaden the location so chromosome 9 counts too", FollowAdd, "location:9", "<nil>"},
		{"on second thoughts use chromosome 11 in place of 9", FollowReplace, "location:11", "location:9"},
		{"hang on, chromosome 12 is the one to remove, not 14", FollowReplace, "location:12", "location:14"},
		{"my mistake: remove chromosome 12 instead and keep 13", FollowReplace, "location:12", "location:13"},
		{"now cut it down to the chromosome 10 members", FollowRestrict, "location:10", "<nil>"},
		{"from those, retain only chromosome 13's", FollowRestrict, "location:13", "<nil>"},
		{"chromosome 14 should be stripped", FollowExclude, "location:14", "<nil>"},
		{"let chromosome 10 in as well, please broaden", FollowAdd, "location:10", "<nil>"},
		{"also add DNA repair into the mix", FollowAdd, "term:DNA repair", "<nil>"},
		{"throw chromosome 4's in too", FollowAdd, "location:4", "<nil>"},
		{"on reflection, use chromosome 10 rather than 13", FollowReplace, "location:10", "location:13"},
		{"oops — chromosome 11 is the one I wanted", FollowReplace, "location:11", "<nil>"},
		{"not tRNA — I wanted the rRNA ones, apologies", FollowReplace, "term:rRNA", "term:tRNA"},
		{"scratch that exclusion, go back", FollowUndo, "<nil>", "<nil>"},
		{"revert that narrowing; I'd like the whole-genome list back", FollowUndo, "<nil>", "<nil>"},
		{"from here on, keep only what's on chromosome 14", FollowRestrict, "location:14", "<nil>"},
		{"undo the narrowing; I want the genome-wide list again", FollowUndo, "<nil>", "<nil>"},
		{"extend it to cover chromosome 4", FollowAdd, "location:4", "<nil>"},
		{"go back to the unfiltered list", FollowUndo, "<nil>", "<nil>"},
		// Narrowing the current result, with the result named first.
		{"of those, only the ones on chromosome 12", FollowRestrict, "location:12", "<nil>"},
		{"among these, keep the ones on chromosome 7", FollowRestrict, "location:7", "<nil>"},
		{"out of them, just those involved in DNA repair", FollowRestrict, "term:DNA repair", "<nil>"},
		{"From this list, which are on chromosome 9?", FollowRestrict, "location:9", "<nil>"},
		{"within the result, retain the genes on the apicoplast", FollowRestrict, "location:apicoplast", "<nil>"},
		{"keep those on chromosome 6", FollowRestrict, "location:6", "<nil>"},
		{"among these, exclude chromosome 5", FollowExclude, "location:5", "<nil>"},
		{"now show only those also involved in DNA repair", FollowRestrict, "term:DNA repair", "<nil>"},
		{"can you add tRNA genes to this?", FollowAdd, "term:tRNA", "<nil>"},
		{"combine that with snoRNA genes", FollowAdd, "term:snoRNA", "<nil>"},
		{"union with translation genes", FollowAdd, "term:translation", "<nil>"},
		{"what if we use chromosome 6 instead?", FollowReplace, "location:6", "<nil>"},
		{"let's look at chromosome 5 instead of 14", FollowReplace, "location:5", "location:14"},
		{"change the chromosome to 9", FollowReplace, "location:9", "<nil>"},
		{"instead of translation, use proteolysis", FollowReplace, "term:proteolysis", "term:translation"},
		{"swap the GO term for proteolysis", FollowReplace, "term:proteolysis", "term:GO term"},
		{"go back one step", FollowUndo, "<nil>", "<nil>"},
		{"forget it, show me rRNA genes", FollowStartOver, "term:rRNA", "<nil>"},
		{"make the GO term proteolysis instead, chromosome unchanged", FollowReplace, "term:proteolysis", "<nil>"},
		{"my error: discard chromosome 11 and keep 13", FollowReplace, "location:11", "location:13"},
		{"hold on to chromosomes 6 and 8, discard the rest", FollowRestrict, "UNION(location:6, location:8)", "<nil>"},
		{"pare that to the chr 12 subset", FollowRestrict, "location:12", "<nil>"},
		{"chromosome 13 may join it", FollowAdd, "location:13", "<nil>"},
		{"chromosome 13 can return", FollowAdd, "location:13", "<nil>"},
		{"hmm, reinstate the chromosome 13 genes", FollowAdd, "location:13", "<nil>"},
		{"and take the translation genes out of that", FollowExclude, "term:translation", "<nil>"},
		{"hmm, reverse the chromosome filter I just asked for", FollowUndo, "<nil>", "<nil>"},
		{"go back to the whole genome", FollowExclude, "term:chromosome restriction", "<nil>"},
		{"wrong RNA class, sorry: tRNA rather than snoRNA", FollowReplace, "term:tRNA", "term:snoRNA"},
		{"swap the GO term for proteolysis, leaving chromosome 2 in place", FollowReplace, "term:proteolysis", "term:GO term"},
		{"my mistake: chromosome 9 was the one to lose; keep 14", FollowReplace, "location:9", "location:14"},
	}
	for _, tt := range tests {
		p := Parse(tt.in)
		if p.Follow != tt.follow || p.Part.String() != tt.part || p.Replaced.String() != tt.replaced {
			t.Errorf("Parse(%q) = %v part %s replaced %s; want %v part %s replaced %s",
				tt.in, p.Follow, p.Part, p.Replaced, tt.follow, tt.part, tt.replaced)
		}
	}
}

// TestRepeats: a message that does the last change again to something
// else, however it ends.
func TestRepeats(t *testing.T) {
	for _, in := range []string{"and chromosome 13 too", "chromosome 12 as well", "chr 3 as well, please", "and chr 6 while you're at it",
		"same for tRNA genes"} {
		if !Repeats(in) {
			t.Errorf("Repeats(%q) = false", in)
		}
	}
	for _, in := range []string{"tRNA genes on chromosome 3", "while you are here, show me snoRNA genes"} {
		if Repeats(in) {
			t.Errorf("Repeats(%q) = true", in)
		}
	}
}
