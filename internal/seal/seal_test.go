package seal

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"testing"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpen(t *testing.T) {
	key := newKey(t)
	box, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	aad := Binding("wdk-credential/v1", "user-a", "plasmodb")
	msg := []byte("secret-token")
	sealed, err := box.Seal(msg, aad)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, msg) {
		t.Fatal("sealed message contains the plaintext")
	}
	again, err := box.Seal(msg, aad)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(sealed, again) {
		t.Fatal("two seals of one message are equal: nonce reused")
	}

	got, err := box.Open(sealed, aad)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("Open() = %q, %v; want %q", got, err, msg)
	}

	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	tests := []struct {
		name   string
		box    *Box
		sealed []byte
		aad    []byte
	}{
		{"other user", box, sealed, Binding("wdk-credential/v1", "user-b", "plasmodb")},
		{"other site", box, sealed, Binding("wdk-credential/v1", "user-a", "toxodb")},
		{"no aad", box, sealed, nil},
		{"other key", other, sealed, aad},
		{"tampered", box, flipped, aad},
		{"truncated", box, sealed[:10], aad},
		{"empty", box, nil, aad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.box.Open(tt.sealed, tt.aad); !errors.Is(err, ErrOpen) {
				t.Fatalf("Open() error = %v, want ErrOpen", err)
			}
		})
	}
}

func TestBindingIsUnambiguous(t *testing.T) {
	if bytes.Equal(Binding("a", "bc"), Binding("ab", "c")) {
		t.Fatal(`Binding("a","bc") == Binding("ab","c")`)
	}
}

func TestKeys(t *testing.T) {
	key := newKey(t)
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{"std", base64.StdEncoding.EncodeToString(key), false},
		{"raw std", base64.RawStdEncoding.EncodeToString(key), false},
		{"url", base64.URLEncoding.EncodeToString(key), false},
		{"spaces", " " + base64.StdEncoding.EncodeToString(key) + "\n", false},
		{"short", base64.StdEncoding.EncodeToString(key[:16]), true},
		{"not base64", "!!!", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseKey(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseKey() error = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && !bytes.Equal(got, key) {
				t.Fatal("ParseKey() returned another key")
			}
		})
	}
	if _, err := New(key[:16]); err == nil {
		t.Fatal("New() accepted a 16-byte key")
	}
}
