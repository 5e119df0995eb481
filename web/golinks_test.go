package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"strategist/internal/event"
	"strategist/web"
)

// TestMarkdownLinksGOIDs: GO ids in a message's running text link to their
// term page in a new tab without opener; ids in code and in links stay as
// written.
func TestMarkdownLinksGOIDs(t *testing.T) {
	md := web.NewMarkdown()
	out := md.HTML("- **DNA repair** (GO:0006281): 50 genes\n- GO:0006260 and GO:0006281\n\n`GO:0000001` and [mine](https://example.org/GO:0000002)\n\n```\nGO:0000003\n```")
	d, err := goquery.NewDocumentFromReader(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	d.Find("a").Each(func(_ int, a *goquery.Selection) {
		if strings.Contains(a.AttrOr("href", ""), "amigo") {
			if a.AttrOr("target", "") != "_blank" || !strings.Contains(a.AttrOr("rel", ""), "noopener") {
				t.Errorf("link %s: target %q rel %q", a.Text(), a.AttrOr("target", ""), a.AttrOr("rel", ""))
			}
			got = append(got, a.Text()+" "+a.AttrOr("href", ""))
		}
	})
	want := []string{
		"GO:0006281 " + web.GOTermURL("GO:0006281"),
		"GO:0006260 https://amigo.geneontology.org/amigo/term/GO:0006260",
		"GO:0006281 " + web.GOTermURL("GO:0006281"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("GO links:\n%s\nwant:\n%s\nin %s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
	if !strings.Contains(out, "(<a") || !strings.Contains(out, "</a>): 50 genes") {
		t.Errorf("the text around an id changed: %s", out)
	}
}

// TestDraftTreeLinksGOIDs: the GO ids a draft's tasks name link to their
// term pages.
func TestDraftTreeLinksGOIDs(t *testing.T) {
	plan := json.RawMessage(`{"type":"task","task":"Genes annotated with DNA repair (GO:0006281)"}`)
	doc := page(t, &event.TurnStart{Base: b("t1"), Mode: "plan", Message: "DNA repair genes"},
		&event.ArtifactSaved{Base: b("t1"), Artifact: event.Artifact{ID: "a2", Kind: event.ArtifactDelegationDraft, Title: "Plan", Version: 1, Plan: plan}})
	link := tid(tid(doc.Selection, "draft-tree"), "go-link")
	if link.Length() != 1 || link.AttrOr("href", "") != web.GOTermURL("GO:0006281") || link.AttrOr("rel", "") != "noopener" {
		t.Errorf("draft GO link = %d, href %q rel %q", link.Length(), link.AttrOr("href", ""), link.AttrOr("rel", ""))
	}
	if got := tid(tid(doc.Selection, "draft-tree"), "draft-node").Text(); !strings.Contains(got, "Genes annotated with DNA repair (GO:0006281)") {
		t.Errorf("draft task text = %q", got)
	}
}
