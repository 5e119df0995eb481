package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5/pgxpool"

	"strategist/internal/pgtest"
	"strategist/internal/seal"
	"strategist/internal/store"
)

// credentialAAD binds a sealed token to its row, as the server does.
func credentialAAD(userID, siteID string) []byte {
	return seal.Binding("wdk-credential/v1", userID, siteID)
}

func insertUser(t *testing.T, pool *pgxpool.Pool, email string) string {
	t.Helper()
	var id string
	err := pool.QueryRow(context.Background(),
		`INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`, email).Scan(&id)
	if err != nil {
		t.Fatalf("insert user: %v", err)
	}
	return id
}

func TestWDKCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	db, err := store.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	alice := insertUser(t, pool, "alice@example.org")
	bob := insertUser(t, pool, "bob@example.org")

	key := make([]byte, seal.KeySize)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	box, err := seal.New(key)
	if err != nil {
		t.Fatal(err)
	}
	const token = "alice-veupathdb-token"
	sealed, err := box.Seal([]byte(token), credentialAAD(alice, "plasmodb"))
	if err != nil {
		t.Fatal(err)
	}
	wdkID := int64(376543)

	t.Run("round trip", func(t *testing.T) {
		put, err := db.PutWDKCredential(ctx, alice, "plasmodb", sealed, &wdkID)
		if err != nil {
			t.Fatalf("PutWDKCredential() error = %v", err)
		}
		got, err := db.WDKCredential(ctx, alice, "plasmodb")
		if err != nil {
			t.Fatalf("WDKCredential() error = %v", err)
		}
		if diff := cmp.Diff(put, got); diff != "" {
			t.Errorf("WDKCredential() mismatch (-put +got):\n%s", diff)
		}
		want := store.WDKCredential{UserID: alice, SiteID: "plasmodb", Ciphertext: sealed, WDKUserID: &wdkID}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(store.WDKCredential{}, "CreatedAt", "UpdatedAt")); diff != "" {
			t.Errorf("WDKCredential() mismatch (-want +got):\n%s", diff)
		}
		plain, err := box.Open(got.Ciphertext, credentialAAD(alice, "plasmodb"))
		if err != nil || string(plain) != token {
			t.Fatalf("Open(stored) = %q, %v; want %q", plain, err, token)
		}
		var raw []byte
		if err := pool.QueryRow(ctx, `SELECT ciphertext FROM wdk_credentials WHERE user_id = $1`, alice).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(token)) {
			t.Fatal("the database holds the token in clear")
		}
	})

	t.Run("replace keeps one row per site", func(t *testing.T) {
		resealed, err := box.Seal([]byte("alice-new-token"), credentialAAD(alice, "plasmodb"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.PutWDKCredential(ctx, alice, "plasmodb", resealed, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.PutWDKCredential(ctx, alice, "toxodb", []byte{1, 2, 3}, nil); err != nil {
			t.Fatal(err)
		}
		list, err := db.WDKCredentials(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		var sites []string
		for _, c := range list {
			sites = append(sites, c.SiteID)
		}
		if diff := cmp.Diff([]string{"plasmodb", "toxodb"}, sites); diff != "" {
			t.Errorf("WDKCredentials() sites mismatch (-want +got):\n%s", diff)
		}
		got, err := db.WDKCredential(ctx, alice, "plasmodb")
		if err != nil {
			t.Fatal(err)
		}
		if got.WDKUserID != nil {
			t.Errorf("WDKUserID = %d after replacing the token without one, want nil", *got.WDKUserID)
		}
		plain, err := box.Open(got.Ciphertext, credentialAAD(alice, "plasmodb"))
		if err != nil || string(plain) != "alice-new-token" {
			t.Fatalf("Open(replaced) = %q, %v", plain, err)
		}
	})

	t.Run("ciphertext moved to another row does not open", func(t *testing.T) {
		got, err := db.WDKCredential(ctx, alice, "plasmodb")
		if err != nil {
			t.Fatal(err)
		}
		// Someone with database access copies Alice's ciphertext into Bob's row.
		if _, err := db.PutWDKCredential(ctx, bob, "plasmodb", got.Ciphertext, nil); err != nil {
			t.Fatal(err)
		}
		moved, err := db.WDKCredential(ctx, bob, "plasmodb")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := box.Open(moved.Ciphertext, credentialAAD(bob, "plasmodb")); !errors.Is(err, seal.ErrOpen) {
			t.Errorf("Open(moved to bob) error = %v, want seal.ErrOpen", err)
		}
		if _, err := box.Open(got.Ciphertext, credentialAAD(alice, "toxodb")); !errors.Is(err, seal.ErrOpen) {
			t.Errorf("Open(other site) error = %v, want seal.ErrOpen", err)
		}
		if err := db.DeleteWDKCredential(ctx, bob, "plasmodb"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ownership", func(t *testing.T) {
		if _, err := db.WDKCredential(ctx, bob, "plasmodb"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("bob reads alice's site: error = %v, want ErrNotFound", err)
		}
		list, err := db.WDKCredentials(ctx, bob)
		if err != nil || len(list) != 0 {
			t.Errorf("WDKCredentials(bob) = %d rows, %v; want none", len(list), err)
		}
		if err := db.DeleteWDKCredential(ctx, bob, "plasmodb"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("bob deletes alice's credential: error = %v, want ErrNotFound", err)
		}
		if _, err := db.WDKCredential(ctx, alice, "plasmodb"); err != nil {
			t.Errorf("alice's credential after bob's delete: %v", err)
		}
		if _, err := db.WDKCredential(ctx, "not-a-uuid", "plasmodb"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("malformed user id: error = %v, want ErrNotFound", err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if err := db.DeleteWDKCredential(ctx, alice, "toxodb"); err != nil {
			t.Fatalf("DeleteWDKCredential() error = %v", err)
		}
		if _, err := db.WDKCredential(ctx, alice, "toxodb"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("after delete: error = %v, want ErrNotFound", err)
		}
		if err := db.DeleteWDKCredential(ctx, alice, "toxodb"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete: error = %v, want ErrNotFound", err)
		}
	})

	t.Run("deleting the user deletes the credential", func(t *testing.T) {
		if _, err := pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, alice); err != nil {
			t.Fatal(err)
		}
		if _, err := db.WDKCredential(ctx, alice, "plasmodb"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("after user delete: error = %v, want ErrNotFound", err)
		}
	})
}
