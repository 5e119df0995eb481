package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// User is a Strategist account.
type User struct {
	ID           string    `db:"id"`
	Email        string    `db:"email"`
	PasswordHash string    `db:"password_hash"`
	CreatedAt    time.Time `db:"created_at"`
}

const createUserSQL = `
INSERT INTO users (email, password_hash) VALUES ($1, $2)
RETURNING id, email, password_hash, created_at`

// CreateUser adds an account; an existing email is ErrConflict.
func (db *DB) CreateUser(ctx context.Context, email, passwordHash string) (User, error) {
	var u User
	err := db.tx(ctx, "create user", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, createUserSQL, email, passwordHash)
		var err error
		u, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
		return err
	})
	return u, err
}

const userByEmailSQL = `SELECT id, email, password_hash, created_at FROM users WHERE email = $1`

// UserByEmail finds an account by its (lower-case) email.
func (db *DB) UserByEmail(ctx context.Context, email string) (User, error) {
	u, err := collectOne(ctx, db, pgx.RowToStructByName[User], userByEmailSQL, email)
	return u, translate("user by email", err)
}

const userByIDSQL = `SELECT id, email, password_hash, created_at FROM users WHERE id = $1`

// UserByID finds an account by id.
func (db *DB) UserByID(ctx context.Context, id string) (User, error) {
	u, err := collectOne(ctx, db, pgx.RowToStructByName[User], userByIDSQL, id)
	return u, translate("user by id", err)
}

const countUsersSQL = `SELECT count(*) FROM users WHERE password_hash <> '!'`

// CountUsers counts accounts that can sign in (the dev user cannot).
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, countUsersSQL).Scan(&n)
	return n, translate("count users", err)
}

const ensureUserSQL = `
INSERT INTO users (email, password_hash) VALUES ($1, '!')
ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
RETURNING id, email, password_hash, created_at`

// EnsureUserWithoutPassword returns the account with this email, creating it
// with a password hash that matches nothing ("!"). Dev mode's implicit user
// is such an account.
func (db *DB) EnsureUserWithoutPassword(ctx context.Context, email string) (User, error) {
	var u User
	err := db.tx(ctx, "ensure user", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, ensureUserSQL, email)
		var err error
		u, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
		return err
	})
	return u, err
}
