// Package sqlguardtest builds SQLite files for tests: the README's SQL
// fixture and any other, through the driver sqlguard uses. Only _test.go
// files import it.
package sqlguardtest

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// Schema is the README's SQL fixture without its rows: users, orders, an
// index on orders and a view over them. Each test adds the rows it needs.
var Schema = []string{
	"CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, email TEXT, password_hash TEXT)",
	"CREATE TABLE orders(id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), total REAL, created_at TEXT)",
	"CREATE INDEX idx_orders_user ON orders(user_id)",
	"CREATE VIEW v_user_totals AS SELECT user_id, sum(total) AS t FROM orders GROUP BY user_id",
}

// Create makes the SQLite file path by running stmts in order; a failing
// statement fails the test.
func Create(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
