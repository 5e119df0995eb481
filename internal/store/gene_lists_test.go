package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"strategist/internal/catalog"
	"strategist/internal/store"
)

func TestGeneListLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	bob := mustUser(t, db, "bob@example.org")

	in := store.GeneList{SiteID: "plasmodb", Name: "kinase screen", Genes: []string{"PF3D7_0100100", "PF3D7_1133400"},
		Unknown: []string{"PF3D7_9999999"}, Mapped: []catalog.IDMapping{{From: "PFA0005w", To: "PF3D7_0100100"}}}
	l, err := db.CreateGeneList(ctx, ada.ID, in)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := db.CreateGeneList(ctx, ada.ID, store.GeneList{SiteID: "plasmodb", Name: "nothing known"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.GeneList(ctx, ada.ID, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	ignore := cmpopts.IgnoreFields(store.GeneList{}, "ID", "UserID", "CreatedAt", "UpdatedAt")
	if diff := cmp.Diff(in, got, ignore); diff != "" {
		t.Errorf("GeneList() mismatch (-want +got):\n%s", diff)
	}
	if e, err := db.GeneList(ctx, ada.ID, empty.ID); err != nil || e.Genes == nil || e.Unknown == nil || e.Mapped == nil {
		t.Errorf("an empty list reads back as %+v, %v; want empty, not nil, slices", e, err)
	}
	sums, err := db.GeneLists(ctx, ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[1].ID != l.ID || sums[1].Size != 2 || sums[1].Unknown != 1 || sums[1].Mapped != 1 {
		t.Errorf("GeneLists() = %+v; want both lists, newest first, with their sizes", sums)
	}

	// Another user sees none of them and can change none.
	if sums, err := db.GeneLists(ctx, bob.ID); err != nil || len(sums) != 0 {
		t.Errorf("bob's GeneLists() = %v, %v", sums, err)
	}
	if _, err := db.GeneList(ctx, bob.ID, l.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob's GeneList() error = %v, want ErrNotFound", err)
	}
	if _, err := db.RenameGeneList(ctx, bob.ID, l.ID, "mine"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob's RenameGeneList() error = %v, want ErrNotFound", err)
	}
	if _, err := db.DeleteGeneList(ctx, bob.ID, l.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob's DeleteGeneList() error = %v, want ErrNotFound", err)
	}
	if _, err := db.GeneList(ctx, ada.ID, "not-a-uuid"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GeneList(malformed id) error = %v, want ErrNotFound", err)
	}

	renamed, err := db.RenameGeneList(ctx, ada.ID, l.ID, "screen hits")
	if err != nil || renamed.Name != "screen hits" || len(renamed.Genes) != 2 {
		t.Errorf("RenameGeneList() = %+v, %v", renamed, err)
	}
	if convs, err := db.DeleteGeneList(ctx, ada.ID, l.ID); err != nil || len(convs) != 0 {
		t.Fatalf("DeleteGeneList() = %v, %v; want no conversation touched", convs, err)
	}
	if _, err := db.GeneList(ctx, ada.ID, l.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GeneList() after delete error = %v, want ErrNotFound", err)
	}
}

func TestControls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	bob := mustUser(t, db, "bob@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Repair", "offline")
	if err != nil {
		t.Fatal(err)
	}
	pos, err := db.CreateGeneList(ctx, ada.ID, store.GeneList{SiteID: "plasmodb", Name: "known", Genes: []string{"PF3D7_0100100"}})
	if err != nil {
		t.Fatal(err)
	}
	neg, err := db.CreateGeneList(ctx, ada.ID, store.GeneList{SiteID: "plasmodb", Name: "decoys", Genes: []string{"PF3D7_1133400"}})
	if err != nil {
		t.Fatal(err)
	}
	bobs, err := db.CreateGeneList(ctx, bob.ID, store.GeneList{SiteID: "plasmodb", Name: "bob's", Genes: []string{"PF3D7_1133400"}})
	if err != nil {
		t.Fatal(err)
	}

	if c, err := db.ConversationControls(ctx, ada.ID, conv.ID); err != nil || c.Positives != nil || c.Negatives != nil {
		t.Errorf("controls before any are set = %+v, %v; want none", c, err)
	}
	c, err := db.SetControls(ctx, ada.ID, conv.ID, &pos.ID, &neg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Positives == nil || c.Positives.ID != pos.ID || c.Negatives == nil || c.Negatives.ID != neg.ID {
		t.Fatalf("SetControls() = %+v", c)
	}
	// The same list on both sides is read on both.
	if c, err := db.SetControls(ctx, ada.ID, conv.ID, &pos.ID, &pos.ID); err != nil || c.Positives == nil || c.Negatives == nil {
		t.Errorf("SetControls(same list twice) = %+v, %v", c, err)
	}
	if _, err := db.SetControls(ctx, ada.ID, conv.ID, &pos.ID, &bobs.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetControls(bob's list) error = %v, want ErrNotFound", err)
	}
	if _, err := db.SetControls(ctx, bob.ID, conv.ID, &bobs.ID, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetControls(ada's conversation by bob) error = %v, want ErrNotFound", err)
	}
	if c, err := db.ConversationControls(ctx, bob.ID, conv.ID); err != nil || c.Positives != nil {
		t.Errorf("bob reads ada's controls: %+v, %v", c, err)
	}
	// Deleting a list leaves the conversation without that control.
	if _, err := db.SetControls(ctx, ada.ID, conv.ID, &pos.ID, &neg.ID); err != nil {
		t.Fatal(err)
	}
	if convs, err := db.DeleteGeneList(ctx, ada.ID, neg.ID); err != nil || len(convs) != 1 || convs[0] != conv.ID {
		t.Fatalf("DeleteGeneList() = %v, %v; want the conversation it was a control of", convs, err)
	}
	c, err = db.ConversationControls(ctx, ada.ID, conv.ID)
	if err != nil || c.Positives == nil || c.Negatives != nil {
		t.Errorf("controls after deleting the negatives = %+v, %v; want the positives only", c, err)
	}
	if c, err := db.SetControls(ctx, ada.ID, conv.ID, nil, nil); err != nil || c.Positives != nil || c.Negatives != nil {
		t.Errorf("SetControls(nil, nil) = %+v, %v; want none", c, err)
	}
}
