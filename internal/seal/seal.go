// Package seal encrypts small secrets (users' VEuPathDB API keys) before
// they are stored, so a database dump or backup alone does not give them away.
//
// It is AES-256-GCM with a 32-byte server key: every message gets a fresh
// random 96-bit nonce, stored in front of the ciphertext. Callers bind each
// message to where it lives with additional authenticated data (for a
// credential: the owner's user id and the site), so a ciphertext copied into
// another row does not open there.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of a server key in bytes (AES-256).
const KeySize = 32

// ErrOpen means a sealed message did not authenticate: wrong key, wrong
// additional data, or a damaged or truncated message. The cases are not told
// apart on purpose.
var ErrOpen = errors.New("seal: message does not authenticate")

// Box seals and opens messages under one key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal: key is %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return &Box{aead: aead}, nil
}

// ParseKey decodes a key from configuration: the standard base64 of 32
// random bytes (what `openssl rand -base64 32` prints), padded or not.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != KeySize {
				return nil, fmt.Errorf("seal: key decodes to %d bytes, want %d", len(k), KeySize)
			}
			return k, nil
		}
	}
	return nil, errors.New("seal: key is not base64")
}

// Seal encrypts plaintext bound to additional, returning nonce||ciphertext.
func (b *Box) Seal(plaintext, additional []byte) ([]byte, error) {
	ns := b.aead.NonceSize()
	out := make([]byte, ns, ns+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(out[:ns]); err != nil {
		return nil, fmt.Errorf("seal: nonce: %w", err)
	}
	return b.aead.Seal(out, out[:ns], plaintext, additional), nil
}

// Open decrypts a message from Seal with the same additional data; any
// mismatch is ErrOpen.
func (b *Box) Open(sealed, additional []byte) ([]byte, error) {
	ns := b.aead.NonceSize()
	if len(sealed) < ns+b.aead.Overhead() {
		return nil, ErrOpen
	}
	pt, err := b.aead.Open(nil, sealed[:ns], sealed[ns:], additional)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}

// Binding encodes the parts that name where a message lives (purpose, owner,
// site, ...) as additional data. Each part is length-prefixed, so ("a", "bc")
// and ("ab", "c") bind differently.
func Binding(parts ...string) []byte {
	var out []byte
	for _, p := range parts {
		out = fmt.Appendf(out, "%d:%s;", len(p), p)
	}
	return out
}
