package genelist_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/genelist"
	"strategist/internal/offlinetest"
	"strategist/internal/pgtest"
	"strategist/internal/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

func newService(t *testing.T) (*genelist.Service, *store.DB) {
	t.Helper()
	d, err := offline.Load(offlinetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := offline.New(offline.Config{Data: d})
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	s, err := genelist.New(genelist.Config{Store: db, Resolver: cat, DefaultSite: offline.SiteID})
	if err != nil {
		t.Fatal(err)
	}
	return s, db
}

func TestCreateResolvesAndReports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := newService(t)
	ada, err := db.CreateUser(ctx, "ada@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	// A 2010 paper's ids next to current ones, in a CSV with a header.
	l, err := s.Create(ctx, ada.ID, "", " screen hits ", "gene,score\nPFA0005w,3\npf3d7_1133400,2\nPF3D7_9999999,1\nPF3D7_0100100,1\n")
	if err != nil {
		t.Fatal(err)
	}
	want := store.GeneList{SiteID: offline.SiteID, Name: "screen hits", Genes: []string{"PF3D7_0100100", "PF3D7_1133400"},
		Unknown: []string{"PF3D7_9999999"}, Mapped: []catalog.IDMapping{{From: "PFA0005w", To: "PF3D7_0100100"}}}
	got := store.GeneList{SiteID: l.SiteID, Name: l.Name, Genes: l.Genes, Unknown: l.Unknown, Mapped: l.Mapped}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Create() mismatch (-want +got):\n%s", diff)
	}
	if again, err := s.Get(ctx, ada.ID, l.ID); err != nil || !cmp.Equal(again.Genes, l.Genes) {
		t.Errorf("Get() = %+v, %v", again, err)
	}
}

func TestCreateRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db := newService(t)
	ada, err := db.CreateUser(ctx, "ada@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, listName, text, field string }{
		{"no ids", "empty", "Gene ID\n\n", "text"},
		{"no name", "  ", "PF3D7_0100100", "name"},
		{"control characters", "a\x00b", "PF3D7_0100100", "name"},
	} {
		_, err := s.Create(ctx, ada.ID, "", tt.listName, tt.text)
		ie, ok := errors.AsType[*genelist.InputError](err)
		if !ok || ie.Field != tt.field || !errors.Is(err, genelist.ErrInput) {
			t.Errorf("%s: Create() error = %v, want an InputError on %s", tt.name, err, tt.field)
		}
	}
	if _, err := s.Create(ctx, ada.ID, "toxodb", "elsewhere", "PF3D7_0100100"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("Create() on a site the catalog lacks: error = %v, want catalog.ErrNotFound", err)
	}
	if ls, err := s.Lists(ctx, ada.ID); err != nil || len(ls) != 0 {
		t.Errorf("a refused list was stored: %v, %v", ls, err)
	}
}
