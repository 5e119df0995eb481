package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"strategist/internal/account"
	"strategist/internal/config"
	"strategist/internal/store"
)

// adminDB opens the database for an administration command, configured
// from the environment alone (no serve flags).
func adminDB(ctx context.Context, getenv func(string) string, stderr io.Writer) (*config.Config, *store.DB, error) {
	cfg, err := config.Load(nil, getenv, stderr)
	if err != nil {
		return nil, nil, err
	}
	db, err := openDB(ctx, cfg)
	return cfg, db, err
}

func migrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) > 0 {
		return usageError{"usage: strategist migrate"}
	}
	_, db, err := adminDB(ctx, getenv, stderr)
	if err != nil {
		return err
	}
	db.Close()
	fmt.Fprintln(stdout, "database is up to date")
	return nil
}

func userCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return usageError{"usage: strategist user create|token|revoke --email E, or strategist user count"}
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("strategist user "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "account email")
	name := fs.String("name", "cli", "token name (user token)")
	tokenID := fs.String("token-id", "", "token id (user revoke)")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *email == "" && sub != "count" {
		return usageError{"--email is required"}
	}
	cfg, db, err := adminDB(ctx, getenv, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	accounts, err := account.New(account.Config{Store: db, SessionTTL: cfg.SessionTTL})
	if err != nil {
		return err
	}
	switch sub {
	case "count":
		n, err := db.CountUsers(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, n)
		return nil
	case "create":
		password, err := readPassword(stdin, stderr)
		if err != nil {
			return err
		}
		u, err := accounts.CreateUser(ctx, *email, password)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created account %s\n", u.Email)
		return nil
	case "token":
		u, err := db.UserByEmail(ctx, account.NormalizeEmail(*email))
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no account with email %s", *email)
		}
		if err != nil {
			return err
		}
		token, t, err := accounts.CreateAPIToken(ctx, u.ID, *name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "API token %s for %s (shown once; send it as \"Authorization: Bearer <token>\"):\n", t.ID, u.Email)
		fmt.Fprintln(stdout, token)
		return nil
	case "revoke":
		if *tokenID == "" {
			return usageError{"--token-id is required"}
		}
		u, err := db.UserByEmail(ctx, account.NormalizeEmail(*email))
		if err != nil {
			return fmt.Errorf("no account with email %s", *email)
		}
		if err := accounts.RevokeAPIToken(ctx, u.ID, *tokenID); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%s has no live token %s", u.Email, *tokenID)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked token %s\n", *tokenID)
		return nil
	}
	return usageError{fmt.Sprintf("unknown user command %q (create, token, revoke, count)", sub)}
}

// readPassword prompts twice on a terminal, or reads one line from a pipe.
// The password is never echoed or printed.
func readPassword(stdin io.Reader, stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "Password: ")
		p1, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprint(stderr, "Repeat password: ")
		p2, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		if string(p1) != string(p2) {
			return "", errors.New("the passwords differ")
		}
		return string(p1), nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("no password given: type it at the prompt or pipe it on stdin")
	}
	return line, nil
}
