package catalogtool

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

// TestMatchTermsSynonyms: a query that is one of a term's synonyms finds
// the term, after a term named so and before a term whose name only
// begins with the query, and the answer says which synonym it was.
func TestMatchTermsSynonyms(t *testing.T) {
	vocab := []catalog.Term{
		{Term: "GO:0000280", Display: "nuclear division (GO:0000280)", Synonyms: []string{"karyokinesis"}, Definition: "The division of a cell nucleus."},
		{Term: "GO:0000278", Display: "mitotic cell cycle (GO:0000278)", Synonyms: []string{"mitosis"}},
		{Term: "GO:1", Display: "mitosis (GO:1)"},
		{Term: "GO:2", Display: "mitosis regulation (GO:2)"},
	}
	var got []string
	for _, m := range MatchTerms(vocab, "Mitosis") {
		got = append(got, m.Term+" "+firstOr(m.Synonyms))
	}
	if diff := cmp.Diff([]string{"GO:1 ", "GO:0000278 mitosis", "GO:2 "}, got); diff != "" {
		t.Errorf("MatchTerms(mitosis) mismatch (-want +got):\n%s", diff)
	}
	s := &Set{maxTerms: 10}
	info := s.paramInfo(catalog.Param{Name: "go", Type: catalog.ParamMultiPick, Vocabulary: vocab, VocabularySize: 100}, "karyokinesis")
	if len(info.Values) != 1 || info.Values[0].Term != "GO:0000280" || info.Values[0].Synonym != "karyokinesis" ||
		info.Values[0].Definition != "The division of a cell nucleus." {
		t.Errorf("paramInfo(karyokinesis).Values = %+v, want GO:0000280 found by its synonym", info.Values)
	}
	info = s.paramInfo(catalog.Param{Name: "go", Type: catalog.ParamMultiPick, Vocabulary: vocab, VocabularySize: 100}, "nuclear")
	if len(info.Values) != 1 || info.Values[0].Synonym != "" || info.Values[0].Definition != "" {
		t.Errorf("paramInfo(nuclear).Values = %+v, want GO:0000280 by its name, no synonym", info.Values)
	}
}

// TestMatchTermsSeveralSynonyms: a term two of whose synonyms hold the
// query's words carries both, so a reader can find the one a request
// wrote ("nucleobase, nucleoside, nucleotide and nucleic acid catabolic
// process" beside "nucleobase, nucleoside and nucleotide catabolic
// process").
func TestMatchTermsSeveralSynonyms(t *testing.T) {
	vocab := []catalog.Term{{Term: "GO:0034655", Display: "nucleobase-containing compound catabolic process (GO:0034655)",
		Synonyms: []string{"nucleobase, nucleoside and nucleotide catabolic process", "nucleobase, nucleoside, nucleotide and nucleic acid catabolic process", "nucleic acid breakdown"}}}
	s := &Set{maxTerms: 10}
	info := s.paramInfo(catalog.Param{Name: "go", Type: catalog.ParamMultiPick, Vocabulary: vocab, VocabularySize: 100}, "nucleobase nucleoside")
	want := []string{"nucleobase, nucleoside and nucleotide catabolic process", "nucleobase, nucleoside, nucleotide and nucleic acid catabolic process"}
	if len(info.Values) != 1 || info.Values[0].Synonym != "" || !slices.Equal(info.Values[0].Synonyms, want) {
		t.Errorf("paramInfo(nucleobase nucleoside).Values = %+v, want GO:0034655 with the two synonyms that hold both words", info.Values)
	}
}

func firstOr(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

// TestMatchTermsSynonymOverWords: a term one of whose synonyms is the
// query ranks above terms that only contain its words, even when its own
// name contains them too, and carries the synonym.
func TestMatchTermsSynonymOverWords(t *testing.T) {
	vocab := []catalog.Term{
		{Term: "GO:3", Display: "cell killing of host cells (GO:3)"},
		{Term: "GO:4", Display: "killing by lysis of the cell (GO:4)", Synonyms: []string{"cell killing"}},
	}
	var got []string
	for _, m := range MatchTerms(vocab, "cell killing") {
		got = append(got, m.Term+" "+firstOr(m.Synonyms))
	}
	if diff := cmp.Diff([]string{"GO:4 cell killing", "GO:3 "}, got); diff != "" {
		t.Errorf("MatchTerms(cell killing) mismatch (-want +got):\n%s", diff)
	}
}

// TestMatchTermsSynonymWords: a term whose name lacks the query's words
// but one of whose synonyms holds them all is found after every term
// whose name holds them, and carries the synonym that held them.
func TestMatchTermsSynonymWords(t *testing.T) {
	vocab := []catalog.Term{
		{Term: "GO:0044409", Display: "entry into host (GO:0044409)", Synonyms: []string{"host cell invasion", "invasion of host"}},
		{Term: "GO:5", Display: "invasion regulation (GO:5)"},
		{Term: "GO:6", Display: "cell adhesion (GO:6)", Synonyms: []string{"cell adhesion molecule activity"}},
	}
	var got []string
	for _, m := range MatchTerms(vocab, "invasion") {
		got = append(got, m.Term+" "+firstOr(m.Synonyms))
	}
	if diff := cmp.Diff([]string{"GO:5 ", "GO:0044409 host cell invasion"}, got); diff != "" {
		t.Errorf("MatchTerms(invasion) mismatch (-want +got):\n%s", diff)
	}
	if got := MatchTerms(vocab, "host invasion"); len(got) != 1 || got[0].Synonyms[0] != "host cell invasion" {
		t.Errorf("MatchTerms(host invasion) = %+v, want GO:0044409 by the synonym holding both words", got)
	}
}
