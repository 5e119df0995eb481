package web_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"strategist/internal/catalog"
	"strategist/web"
)

// TestMarkdownLinksStepIDs: the ids of the strategy's steps in running text
// link to their graph boxes with the step id the page's script follows;
// ids of no step, ids in code and in links stay as written, and the
// sanitiser keeps only the step link's own class and id.
func TestMarkdownLinksStepIDs(t *testing.T) {
	md := web.NewMarkdown()
	steps := map[string]string{"s5": "DNA replication (GO:0006260)", "s12": ""}
	out := md.HTMLWithSteps("Root step s5: 89 genes.\nCombined s12 with s7 (no such step); genes5 and `s5` and [s12](https://example.org/s12).", steps)
	d, err := goquery.NewDocumentFromReader(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	d.Find("a.step-mention").Each(func(_ int, a *goquery.Selection) {
		got = append(got, a.Text()+" "+a.AttrOr("href", "")+" "+a.AttrOr("data-step-id", "")+" "+a.AttrOr("class", "")+" "+a.AttrOr("title", "-"))
	})
	want := []string{"s5 #step-s5 s5 step-link step-mention DNA replication (GO:0006260)", "s12 #step-s12 s12 step-link step-mention -"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("step links %q, want %q in %s", got, want, out)
	}
	if !strings.Contains(out, "<code>s5</code>") || d.Find(`a[href="https://example.org/s12"]`).Length() != 1 {
		t.Errorf("code or a link was changed: %s", out)
	}
	// Without steps, and for markdown that forges the attributes, nothing
	// is linked.
	if out := md.HTML("Root step s5."); strings.Contains(out, "<a") {
		t.Errorf("linked without steps: %s", out)
	}
	forged := md.HTMLWithSteps(`<a class="step-link step-mention" data-step-id="s5" href="#x">x</a> [y](#y){class="evil"}`, steps)
	fd, err := goquery.NewDocumentFromReader(strings.NewReader(forged))
	if err != nil {
		t.Fatal(err)
	}
	if fd.Find("[data-step-id], a[class]").Length() != 0 {
		t.Errorf("raw HTML got through: %s", forged)
	}
}

// TestParamFields: the editor offers the visible parameters a researcher
// may set, listed vocabularies as selects with the step's terms selected,
// numbers as numbers, a range as two ends; ParamValues reads back only
// what changed, in WDK's encoding.
func TestParamFields(t *testing.T) {
	lo := 0.0
	s := &catalog.Search{Params: []catalog.Param{
		{Name: "organism", DisplayName: "Organism", Type: catalog.ParamMultiPick, IsVisible: true,
			Vocabulary: []catalog.Term{{Term: "Pf3D7", Display: "P. falciparum 3D7"}, {Term: "PvP01"}}},
		{Name: "chromosome", DisplayName: "Chromosome", Type: catalog.ParamSinglePick, IsVisible: true,
			Vocabulary: []catalog.Term{{Term: "13"}, {Term: "14"}}},
		{Name: "go", DisplayName: "GO term", Type: catalog.ParamMultiPick, IsVisible: true,
			Vocabulary: []catalog.Term{{Term: "GO:1"}}, VocabularySize: 5000},
		{Name: "start", DisplayName: "Start", Type: catalog.ParamString, IsNumber: true, IsVisible: true},
		{Name: "mw", DisplayName: "Weight", Type: catalog.ParamNumberRange, IsVisible: true, Min: &lo},
		{Name: "text", Type: catalog.ParamString, IsVisible: true, AllowEmpty: true},
		{Name: "hidden", Type: catalog.ParamString},
		{Name: "input", Type: catalog.ParamInputStep, IsVisible: true},
	}, InputParams: []string{"input"}}
	cur := map[string]string{"organism": `["Pf3D7"]`, "chromosome": "14", "go": `["GO:0006260","GO:0006281"]`,
		"start": "1", "mw": `{"min":"10","max":"20"}`, "text": "", "hidden": "x", "input": ""}
	fields := web.ParamFields(s, cur)
	var kinds []string
	for _, f := range fields {
		kinds = append(kinds, f.Name+":"+f.Kind)
	}
	if want := []string{"organism:multi", "chromosome:select", "go:lines", "start:number", "mw:range", "text:text"}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("fields %v, want %v", kinds, want)
	}
	if o := fields[0].Options; !o[0].Selected || o[1].Selected || o[0].Label != "P. falciparum 3D7 (Pf3D7)" {
		t.Errorf("organism options %+v", o)
	}
	if o := fields[1].Options; o[0].Selected || !o[1].Selected {
		t.Errorf("chromosome options %+v", o)
	}
	if fields[2].Value != "GO:0006260\nGO:0006281" || fields[4].Min != "10" || fields[4].Max != "20" || !fields[5].Optional {
		t.Errorf("values: go %q, range %q–%q, text optional %v", fields[2].Value, fields[4].Min, fields[4].Max, fields[5].Optional)
	}

	// The form as drawn changes nothing.
	same := url.Values{"p.organism": {"", "Pf3D7"}, "p.chromosome": {"14"}, "p.go": {"GO:0006281\r\nGO:0006260\r\n"},
		"p.start": {"1"}, "p.mw.min": {"10"}, "p.mw.max": {"20"}, "p.text": {""}}
	if got := web.ParamValues(s, cur, same); len(got) != 0 {
		t.Errorf("unchanged form gives %v", got)
	}
	changed := url.Values{"p.organism": {""}, "p.chromosome": {"13"}, "p.go": {"GO:0006260"},
		"p.start": {" 5 "}, "p.mw.min": {"1"}, "p.mw.max": {"2"}, "p.hidden": {"y"}, "p.input": {"s1"}}
	want := map[string]string{"organism": "[]", "chromosome": "13", "go": `["GO:0006260"]`, "start": "5", "mw": `{"max":"2","min":"1"}`}
	if got := web.ParamValues(s, cur, changed); !reflect.DeepEqual(got, want) {
		t.Errorf("changed form gives %v, want %v", got, want)
	}
}
