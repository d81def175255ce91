package sqlguard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/sandboxtest"

	"github.com/agentls/agentls/sandbox/sqlguard/sqlguardtest"
)

const unboundedCTE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "

// TestQuerySQLite_B3_PolicyExamples runs every case of sql.jsonl on the
// README fixture: allow cases return rows, deny cases fail and change no
// file, soft cases are reported either way.
func TestQuerySQLite_B3_PolicyExamples(t *testing.T) {
	dir := newSQLFixture(t)
	app := filepath.Join(dir, "app.db")
	var right, unsafe, overBlocked, soft int
	for _, c := range loadSQLCases(t) {
		before := snapshotDir(t, dir)
		res, err := Query(t.Context(), app, c.SQL, Limits{Timeout: 2 * time.Second})
		allowed := err == nil
		if !sameSnapshot(before, snapshotDir(t, dir)) {
			t.Errorf("%q changed or created a file", c.SQL)
		}
		switch {
		case allowed == (c.Expect == "allow"):
			right++
			if allowed && len(res.Rows) == 0 {
				t.Errorf("%q returned no rows", c.SQL)
			}
		case c.Soft:
			soft++
			t.Logf("soft %s case %q answered the other way (%v)", c.Expect, c.SQL, err)
		case allowed:
			unsafe++
			t.Errorf("UNSAFE: %q (%s) was allowed", c.SQL, c.Why)
		default:
			overBlocked++
			t.Errorf("over-blocked: %q (%s): %v", c.SQL, c.Why, err)
		}
		if c.Expect == "deny" && !c.Soft && Check(c.SQL) == nil {
			t.Errorf("Check alone allows %q", c.SQL)
		}
	}
	t.Logf("sql.jsonl: %d right, %d unsafe, %d over-blocked, %d soft the other way", right, unsafe, overBlocked, soft)
}

// TestQuerySQLite_B3_Allowed runs the allowed queries that make sense on
// the fixture.
func TestQuerySQLite_B3_Allowed(t *testing.T) {
	dir := newSQLFixture(t)
	app := filepath.Join(dir, "app.db")
	before := snapshotDir(t, dir)
	for _, q := range sqlAllowed {
		if strings.Contains(q, " FROM t") || strings.Contains(q, "[x;y]") || strings.Contains(q, "`a``;b`") {
			continue // no such table or column in the fixture
		}
		if _, err := Query(t.Context(), app, q, Limits{}); err != nil {
			t.Errorf("Query(%q): %v", q, err)
		}
	}
	res, err := Query(t.Context(), app, "SELECT id, name, email, 1.5, x'00ff' FROM users ORDER BY id", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Columns, ","); got != "id,name,email,1.5,x'00ff'" || len(res.Rows) != 3 || res.Truncated {
		t.Fatalf("columns %s, %d rows, truncated %v", got, len(res.Rows), res.Truncated)
	}
	if r := res.Rows[2]; r[0] != int64(3) || r[1] != "cy" || r[2] != nil || r[3] != 1.5 || string(r[4].([]byte)) != "\x00\xff" {
		t.Errorf("row 3 = %#v", r)
	}
	if !sameSnapshot(before, snapshotDir(t, dir)) {
		t.Error("a read changed the fixture")
	}
}

// TestQuerySQLite_T5_Adversarial runs the refused statements end to end:
// each fails and leaves every file as it was.
func TestQuerySQLite_T5_Adversarial(t *testing.T) {
	dir := newSQLFixture(t)
	app := filepath.Join(dir, "app.db")
	before := snapshotDir(t, dir)
	for _, q := range sqlDenied {
		if _, err := Query(t.Context(), app, q, Limits{Timeout: time.Second}); err == nil {
			t.Errorf("Query(%.80q) succeeded", q)
		}
	}
	if after := snapshotDir(t, dir); !sameSnapshot(before, after) {
		t.Errorf("files changed: %v -> %v", before, after)
	}
}

// TestQuerySQLite_B3_AuthorizerAlone bypasses Check: the connection by
// itself (authorizer, query_only, read-only open, limits) refuses writes.
func TestQuerySQLite_B3_AuthorizerAlone(t *testing.T) {
	dir := newSQLFixture(t)
	app := filepath.Join(dir, "app.db")
	before := snapshotDir(t, dir)
	policy := []string{ // refused by the authorizer itself
		"ATTACH DATABASE '" + dir + "/evil.db' AS e", "ATTACH '/tmp/evil.db' AS e",
		"ATTACH 'file:" + dir + "/x.db?mode=rwc' AS e", "ATTACH '" + dir + "/other.db' AS o",
		"ATTACH '" + dir + "/oth' || 'er.db' AS o", "DETACH DATABASE main",
		"PRAGMA query_only=0", "PRAGMA main.query_only=0", "PRAGMA query_only=OFF",
		"PRAGMA query_only=0; INSERT INTO users(name) VALUES ('x')",
		"SELECT 1; INSERT INTO users(name) VALUES ('x')", "INSERT INTO users(name) VALUES ('x')",
		"INSERT INTO users SELECT * FROM users RETURNING *", "UPDATE users SET name = 'x'",
		"DELETE FROM users RETURNING *", "REPLACE INTO users(id, name) VALUES (1, 'x')",
		"WITH x AS (SELECT 9) INSERT INTO users(id) SELECT * FROM x",
		"VACUUM", "VACUUM INTO '/tmp/copy_agentls.db'", "VACUUM INTO '" + dir + "/copy.db'",
		"CREATE TEMP TABLE t AS SELECT * FROM users", "CREATE TEMP VIEW v AS SELECT 1",
		"CREATE TEMP TRIGGER tr AFTER INSERT ON users BEGIN SELECT 1; END", "CREATE TABLE t(x)",
		"CREATE INDEX i ON users(name)", "DROP TABLE users", "DROP VIEW v_user_totals",
		"ALTER TABLE users ADD COLUMN x", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE", "BEGIN", "SAVEPOINT a",
		"ANALYZE", "REINDEX", "PRAGMA writable_schema=ON", "PRAGMA journal_mode=WAL",
		"PRAGMA user_version=7", "PRAGMA optimize", "PRAGMA wal_checkpoint", "PRAGMA incremental_vacuum",
		"PRAGMA foreign_keys=OFF", "PRAGMA database_list", "SELECT load_extension('./evil')",
		"SELECT * FROM (SELECT load_extension('/tmp/evil'))", "SELECT * FROM sqlite_dbpage",
		"SELECT * FROM pragma_optimize", "SELECT * FROM pragma_query_only",
	}
	other := []string{ // refused by another layer (read-only open, query_only, limits, no such object)
		"PRAGMA user_version=''", "SELECT writefile('/tmp/pwn', 'x')", "SELECT fts3_tokenizer('simple')",
		"SELECT length(randomblob(999999999))", "SELECT zeroblob(100000000)",
		"CREATE VIRTUAL TABLE temp.f USING fts5(a)",
	}
	for _, q := range append(policy, other...) {
		_, err := runSQL(t.Context(), app, q, Limits{Timeout: 2 * time.Second})
		if err == nil {
			t.Errorf("runSQL(%q) succeeded", q)
			continue
		}
		t.Logf("%.70s -> %v", q, err)
		pe, isPolicy := errors.AsType[*sandbox.PolicyError](err)
		if isPolicy && (pe.Rule != RuleNotReadOnly || strings.Contains(pe.Reason, dir)) {
			t.Errorf("runSQL(%q): %v", q, pe)
		}
		if !isPolicy && strings.Contains(err.Error(), dir) {
			t.Errorf("runSQL(%q) error leaks the path: %v", q, err)
		}
		if !isPolicy && contains(policy, q) {
			t.Errorf("runSQL(%q) = %v (%T); want the authorizer's refusal", q, err, err)
		}
	}
	if after := snapshotDir(t, dir); !sameSnapshot(before, after) {
		t.Errorf("files changed: %v -> %v", before, after)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestQuerySQLite_B3_Limits checks the row limit, the byte limit and the
// deadline, which must stop a query that returns no row until it is done
// and one that stalls after its first row.
func TestQuerySQLite_B3_Limits(t *testing.T) {
	dir := newSQLFixture(t)
	app := filepath.Join(dir, "app.db")
	res, err := Query(t.Context(), app, unboundedCTE+"SELECT x FROM c", Limits{})
	if err != nil || len(res.Rows) != 500 || !res.Truncated || res.Rows[499][0] != int64(500) {
		t.Fatalf("unbounded CTE: err %v, truncated %v", err, res != nil && res.Truncated)
	}
	res, err = Query(t.Context(), app, "SELECT * FROM users", Limits{MaxRows: 3})
	if err != nil || len(res.Rows) != 3 || res.Truncated {
		t.Fatalf("exactly MaxRows rows must not be truncated: %v %+v", err, res)
	}
	res, err = Query(t.Context(), app, unboundedCTE+"SELECT printf('%.1000c', 'x') FROM c", Limits{MaxBytes: 10000})
	if err != nil || !res.Truncated || len(res.Rows) < 5 || len(res.Rows) > 12 {
		t.Fatalf("byte limit: err %v, %d rows", err, len(res.Rows))
	}
	for _, q := range []string{
		unboundedCTE + "SELECT count(*) FROM c",
		"SELECT count(*) FROM (" + unboundedCTE + "SELECT x FROM c)",
		"SELECT 1 UNION ALL SELECT count(*) FROM (" + unboundedCTE + "SELECT x FROM c)",
		unboundedCTE + "SELECT x FROM c WHERE x = 0",
		unboundedCTE + "SELECT x FROM c ORDER BY x DESC",
	} {
		start := time.Now()
		_, err := Query(t.Context(), app, q, Limits{Timeout: 200 * time.Millisecond})
		if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%q: err %v; want ErrTimeout", q, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%q stopped after %s", q, d)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := Query(ctx, app, unboundedCTE+"SELECT count(*) FROM c", Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled query: %v; want context.Canceled", err)
	}
}

// TestQuerySQLite_B3_Files checks what Query opens: only an existing
// regular file, never creating one, and no -wal/-shm files next to an idle
// WAL database.
func TestQuerySQLite_B3_Files(t *testing.T) {
	dir := newSQLFixture(t)
	sandboxtest.MustMkdir(t, filepath.Join(dir, "sub.db"))
	sandboxtest.Mkfifo(t, filepath.Join(dir, "fifo.db"))
	sandboxtest.MustWrite(t, filepath.Join(dir, "text.db"), "not a database, just text that is long enough to have a header\n")
	odd := filepath.Join(dir, "we?ird#name%20&mode=rwc.db")
	sqlguardtest.Create(t, filepath.Join(dir, "plain"), "CREATE TABLE t(x)", "INSERT INTO t VALUES (42)")
	if err := os.Rename(filepath.Join(dir, "plain"), odd); err != nil {
		t.Fatal(err)
	}
	wal := filepath.Join(dir, "wal.db")
	sqlguardtest.Create(t, wal, "PRAGMA journal_mode=WAL", "CREATE TABLE t(x)", "INSERT INTO t VALUES (7)")
	before := snapshotDir(t, dir)
	for _, name := range []string{"missing.db", "sub.db", "fifo.db", "text.db", "nodir/x.db"} {
		_, err := Query(t.Context(), filepath.Join(dir, name), "SELECT 1", Limits{Timeout: time.Second})
		if err == nil || strings.Contains(err.Error(), dir) {
			t.Errorf("%s: err %v", name, err)
		}
		if name == "missing.db" && !errors.Is(err, ErrNoDatabase) {
			t.Errorf("missing.db: err %v; want ErrNoDatabase", err)
		}
	}
	if _, err := Query(t.Context(), "rel.db", "SELECT 1", Limits{}); err == nil {
		t.Error("a relative path was accepted")
	}
	for path, want := range map[string]int64{odd: 42, wal: 7} {
		res, err := Query(t.Context(), path, "SELECT x FROM t", Limits{})
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != want {
			t.Errorf("%s: %v %+v", filepath.Base(path), err, res)
		}
	}
	if after := snapshotDir(t, dir); !sameSnapshot(before, after) {
		t.Errorf("files changed: %v -> %v", before, after)
	}
}

// TestQuerySQLite_B3_NoLeaks checks that connections and their watchers
// are gone after each query.
func TestQuerySQLite_B3_NoLeaks(t *testing.T) {
	dir := newSQLFixture(t)
	app := filepath.Join(dir, "app.db")
	settle := func() int {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
		return runtime.NumGoroutine()
	}
	base := settle()
	for range 30 {
		Query(t.Context(), app, "SELECT * FROM users", Limits{})
		Query(t.Context(), app, "SELECT count(*) FROM ("+unboundedCTE+"SELECT x FROM c)", Limits{Timeout: 20 * time.Millisecond})
		runSQL(t.Context(), app, "INSERT INTO users(name) VALUES ('x')", Limits{})
	}
	if n := settle(); n > base+2 {
		t.Errorf("goroutines: %d before, %d after", base, n)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err == nil && len(fds) > 64 {
		t.Errorf("%d open file descriptors", len(fds))
	}
}
