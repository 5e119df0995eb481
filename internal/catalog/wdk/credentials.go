package wdk

import (
	"errors"
	"fmt"
	"strings"

	"strategist/internal/seal"
)

// credentialPurpose versions the additional data of sealed API keys.
const credentialPurpose = "wdk-credential/v1"

// Credentials seals users' VEuPathDB API keys for the store and opens them
// for a TokenSource. Each sealed key is bound to its owner and site, so a
// ciphertext copied into another user's or site's row does not open.
type Credentials struct {
	box *seal.Box
}

// NewCredentials returns Credentials under the server key (32 bytes, from
// configuration).
func NewCredentials(key []byte) (*Credentials, error) {
	box, err := seal.New(key)
	if err != nil {
		return nil, fmt.Errorf("wdk: credentials: %w", err)
	}
	return &Credentials{box: box}, nil
}

// Seal encrypts a user's API key for a site.
func (c *Credentials) Seal(userID, siteID, token string) ([]byte, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, errors.New("wdk: credentials: empty API key")
	}
	b, err := c.box.Seal([]byte(token), seal.Binding(credentialPurpose, userID, siteID))
	if err != nil {
		return nil, fmt.Errorf("wdk: credentials: %w", err)
	}
	return b, nil
}

// Open decrypts a sealed API key of a user for a site. A key sealed for
// another user or site, or under another server key, is seal.ErrOpen.
func (c *Credentials) Open(userID, siteID string, sealed []byte) (string, error) {
	b, err := c.box.Open(sealed, seal.Binding(credentialPurpose, userID, siteID))
	if err != nil {
		return "", fmt.Errorf("wdk: credentials: %w", err)
	}
	return string(b), nil
}
