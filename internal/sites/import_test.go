package sites_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
	"strategist/internal/catalog/wdk/wdkfake"
	"strategist/internal/sites"
	"strategist/internal/strategy"
)

// shape is an export's tree with each step's search, name, weight and
// parameters, without its ids.
type shapeNode struct {
	Search, Name string
	Weight       *int
	Params       map[string]string
	Inputs       []shapeNode
}

func shape(w *strategy.WDKStrategy, t *strategy.WDKStepTree) shapeNode {
	st := w.Steps[t.StepID]
	n := shapeNode{Search: st.SearchName, Name: st.CustomName, Weight: st.SearchConfig.WDKWeight, Params: st.SearchConfig.Parameters}
	for _, in := range []*strategy.WDKStepTree{t.PrimaryInput, t.SecondaryInput} {
		if in != nil {
			n.Inputs = append(n.Inputs, shape(w, in))
		}
	}
	return n
}

// TestImportFromTheAccount: a strategy saved into the account reads back
// as the export it was saved from, by its id and by its share link (whose
// copy is deleted again); links of another site or of nothing are refused.
func TestImportFromTheAccount(t *testing.T) {
	fake := newFakeSite(t)
	reg, ctx, base := liveRegistry(t, fake)
	want := exported(t)
	saved, err := reg.SaveStrategy(ctx, "plasmodb-live", want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := reg.ImportStrategy(ctx, "plasmodb-live", saved.StrategyID)
	if err != nil {
		t.Fatalf("ImportStrategy() error = %v", err)
	}
	if diff := cmp.Diff(shape(want, &want.StepTree), shape(got, &got.StepTree)); diff != "" || got.Name != want.Name || got.RecordType != "transcript" {
		t.Errorf("ImportStrategy() = %q of %q, mismatch (-want +got):\n%s", got.Name, got.RecordType, diff)
	}

	st, _ := fake.Strategy(saved.StrategyID)
	fake.AddKey("key-of-eve", wdkfake.User{ID: 88})
	for _, link := range []string{base + "/plasmo/app/workspace/strategies/import/" + st.Signature, base + "/plasmo/app/import/" + st.Signature + "/", st.Signature} {
		shared, err := reg.ImportShared(ctx, "plasmodb-live", link)
		if err != nil {
			t.Fatalf("ImportShared(%q) error = %v", link, err)
		}
		if diff := cmp.Diff(shape(want, &want.StepTree), shape(shared, &shared.StepTree)); diff != "" {
			t.Errorf("ImportShared(%q) mismatch (-want +got):\n%s", link, diff)
		}
	}
	if n := fake.StrategyCount(); n != 1 {
		t.Errorf("the account holds %d strategies after reading shared ones, want the saved one alone", n)
	}

	for _, link := range []string{"https://toxodb.org/toxo/app/workspace/strategies/import/" + st.Signature, "the strategy I saw", base + "/plasmo/app/workspace/strategies/" + strconv.FormatInt(saved.StrategyID, 10)} {
		if _, err := reg.ImportShared(ctx, "plasmodb-live", link); !errors.Is(err, sites.ErrShareLink) {
			t.Errorf("ImportShared(%q) error = %v, want ErrShareLink", link, err)
		}
	}
	if _, err := reg.ImportShared(ctx, "plasmodb-live", "0123456789abcdef"); !errors.As(err, new(*catalog.ValidationError)) {
		t.Errorf("ImportShared(unknown signature) error = %v, want the site's ValidationError", err)
	}
	if _, err := reg.ImportStrategy(ctx, "plasmodb-live", 999999); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("ImportStrategy(unknown id) error = %v, want ErrNotFound", err)
	}
	if _, err := reg.ImportStrategy(ctx, "plasmodb", 1); !errors.Is(err, sites.ErrNotLive) {
		t.Errorf("ImportStrategy(offline site) error = %v, want ErrNotLive", err)
	}
	if v := fake.Violations(); len(v) != 0 {
		t.Errorf("client behaviour the live site punishes: %v", v)
	}
}
