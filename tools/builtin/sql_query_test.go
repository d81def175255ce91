package builtin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox/sqlguard/sqlguardtest"
	"github.com/agentls/agentls/tools"
)

// sqlHarness is a workspace holding the README's SQL fixture (app.db), a
// database outside it, and a gateway that offers only sql_query.
type sqlHarness struct {
	base, root string
	runner     *tools.Gateway
}

func newSQLHarness(t *testing.T) *sqlHarness {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &sqlHarness{base: base, root: filepath.Join(base, "ws")}
	for _, d := range []string{"ws/data", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sqlguardtest.Create(t, filepath.Join(h.root, "app.db"), append(slices.Clone(sqlguardtest.Schema),
		"INSERT INTO users VALUES (1, 'ann', 'ann@example.com', 'h1'), (2, 'bob', 'b\tb\nx', 'h2'), (3, 'cy', NULL, 'h3')",
		"INSERT INTO orders VALUES (1, 1, 12.5, '2026-01-01'), (2, 1, 3, '2026-01-02'), (3, 2, 40, '2026-02-01')")...)
	sqlguardtest.Create(t, filepath.Join(base, "outside", "secret.db"), "CREATE TABLE s(x)", "INSERT INTO s VALUES ('TOP SECRET')")
	if err := os.Symlink("../outside/secret.db", filepath.Join(h.root, "link.db")); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	reg.MustRegister(SQLQuery())
	h.runner = newGateway(reg, &tools.Env{Root: h.root}, &tools.GatewayOptions{Allowed: []string{"sql_query"}})
	return h
}

// call runs sql_query through the gateway; no result may mention the
// host directories.
func (h *sqlHarness) call(t *testing.T, args any) tools.Result {
	t.Helper()
	raw := rawArgs(t, args)
	res, err := h.runner.Call(t.Context(), "sql_query", raw)
	if err != nil {
		t.Fatalf("Go error %v", err)
	}
	if strings.Contains(res.Content, h.base) {
		t.Errorf("result leaks a host path: %s", res.Content)
	}
	return res
}

// listing records the names, sizes and modification times under dir.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			out[p] = fmt.Sprint(fi.Mode(), fi.ModTime().UnixNano(), fi.Size())
		}
		return nil
	})
	for _, pat := range []string{"/tmp/evil.db", "/tmp/copy*.db", "/tmp/pwn"} {
		m, _ := filepath.Glob(pat)
		for _, p := range m {
			out[p] = "exists"
		}
	}
	return out
}

func sameListing(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestSQLQuery_B3_Select(t *testing.T) {
	h := newSQLHarness(t)
	got := wantOK(t, h.call(t, map[string]string{"database": "app.db",
		"query": "SELECT u.name, sum(o.total) AS total FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.name ORDER BY 2 DESC"}))
	if got != "name\ttotal\nbob\t40\nann\t15.5\n(2 rows)" {
		t.Errorf("table:\n%s", got)
	}
	got = wantOK(t, h.call(t, map[string]string{"database": "./app.db", "query": "SELECT id, email, x'00ff' FROM users ORDER BY id;"}))
	wantContains(t, got, "id\temail\tx'00ff'\n", "1\tann@example.com\tx'00ff'\n", "2\tb\\tb\\nx\tx'00ff'\n", "3\tNULL\t", "(3 rows)")
	got = wantOK(t, h.call(t, map[string]string{"database": h.root + "/app.db", "query": "PRAGMA table_info(users)"}))
	wantContains(t, got, "cid\tname\ttype", "password_hash", "(4 rows)")
	got = wantOK(t, h.call(t, map[string]string{"database": "app.db", "query": "SELECT printf('%.300c', 'x') AS long"}))
	wantContains(t, got, strings.Repeat("x", 200)+"…\n(1 row)")
	got = wantOK(t, h.call(t, map[string]string{"database": "app.db",
		"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c"}))
	wantContains(t, got, "\n500\n(500 rows, truncated at 500)")
	got = wantOK(t, h.call(t, map[string]string{"database": "app.db",
		"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 400) SELECT x, printf('%.150c', 'y') FROM c"}))
	wantContains(t, got, "rows shown; output limit reached")
	if len(got) > tools.MaxResultChars {
		t.Errorf("output %d chars", len(got))
	}
}

// TestSQLQuery_T5_Check checks the static step: subject, preview, verdicts.
func TestSQLQuery_T5_Check(t *testing.T) {
	h := newSQLHarness(t)
	env := &tools.Env{Root: h.root}
	check := func(db, q string) *tools.Verdict {
		raw, _ := json.Marshal(map[string]string{"database": db, "query": q})
		c, err := SQLQuery().Check(t.Context(), env, raw)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := check("data/../app.db", "SELECT *\n  FROM users u JOIN orders o ON 1")
	if c.Decision != tools.Allow || c.Subject != "app.db: SELECT * FROM users u JOIN orders o ON 1" {
		t.Errorf("check = %+v", c)
	}
	wantContains(t, c.Preview, "read-only SELECT query on app.db", "reads: users, orders")
	if c := check("app.db", strings.Repeat("SELECT 1 UNION ", 100)+"SELECT 2"); len(c.Subject) > 220 {
		t.Errorf("subject not cut: %d bytes", len(c.Subject))
	}
	c = check("app.db", "DELETE FROM users")
	if c.Decision != tools.Deny || c.Code != tools.CodeSQLNotReadOnly || c.Rule != "sql.not_read_only" || c.Field != "query" {
		t.Errorf("check = %+v", c)
	}
	c = check("../outside/secret.db", "SELECT 1")
	if c.Decision != tools.Deny || c.Code != tools.CodePathOutsideRoot || c.Field != "database" {
		t.Errorf("check = %+v", c)
	}
}

func TestSQLQuery_B3_T5_WritesDenied(t *testing.T) {
	h := newSQLHarness(t)
	before := listing(t, h.base)
	for q, kind := range map[string]string{
		"UPDATE users SET name = 'x'":                             "UPDATE",
		"INSERT INTO users SELECT * FROM users RETURNING *":       "INSERT",
		"CREATE TEMP TABLE t AS SELECT * FROM users":              "CREATE",
		"SELECT 1 /* ; */; DELETE FROM users":                     "more than one statement",
		"WITH x AS (DELETE FROM users RETURNING *) SELECT 1":      "DELETE",
		"ATTACH '/tmp/evil.db' AS e":                              "ATTACH",
		"VACUUM INTO '/tmp/copy.db'":                              "VACUUM",
		"PRAGMA query_only = 0":                                   "PRAGMA query_only",
		"PRAGMA user_version = 0":                                 "assignment",
		"PRAGMA main.query_only(0)":                               "PRAGMA query_only",
		"BEGIN IMMEDIATE":                                         "BEGIN",
		"SELECT load_extension('./evil')":                         "load_extension",
		"SELECT * FROM (SELECT \"load_extension\"('x'))":          "load_extension",
		"ＳＥＬＥＣＴ 1":                                                "this statement",
		"SELECT 1; ATTACH 'x' || '.db' AS x":                      "more than one statement",
		"WITH a AS (SELECT 1) REPLACE INTO users SELECT * FROM a": "REPLACE",
	} {
		te := wantErr(t, h.call(t, map[string]string{"database": "app.db", "query": q}), tools.CodeSQLNotReadOnly, "query")
		if !strings.Contains(te.Reason, kind) {
			t.Errorf("%q: reason %q does not name %q", q, te.Reason, kind)
		}
		if strings.Contains(te.Reason, "table_xinfo") || strings.Contains(te.Reason, "authoriz") {
			t.Errorf("%q: reason leaks the inner rules: %q", q, te.Reason)
		}
	}
	if after := listing(t, h.base); !sameListing(before, after) {
		t.Errorf("files changed:\n%v\n%v", before, after)
	}
}

func TestSQLQuery_T5_OutsideWorkspace(t *testing.T) {
	h := newSQLHarness(t)
	for _, db := range []string{"../outside/secret.db", h.base + "/outside/secret.db", "link.db",
		"file://" + h.base + "/outside/secret.db", "/etc/passwd"} {
		te := wantErr(t, h.call(t, map[string]string{"database": db, "query": "SELECT * FROM s"}), tools.CodePathOutsideRoot, "database")
		if strings.Contains(te.Reason, "outside/secret") {
			t.Errorf("%s: reason leaks the target: %q", db, te.Reason)
		}
	}
}

func TestSQLQuery_B3_MissingDatabase(t *testing.T) {
	h := newSQLHarness(t)
	before := listing(t, h.base)
	wantErr(t, h.call(t, map[string]string{"database": "new.db", "query": "SELECT 1"}), tools.CodeNotFound, "database")
	wantErr(t, h.call(t, map[string]string{"database": "nodir/new.db", "query": "SELECT 1"}), tools.CodeNotFound, "database")
	wantErr(t, h.call(t, map[string]string{"database": "data", "query": "SELECT 1"}), tools.CodeInvalidArgs, "database")
	wantErr(t, h.call(t, map[string]string{"database": ".", "query": "SELECT 1"}), tools.CodeInvalidArgs, "database")
	if err := os.WriteFile(filepath.Join(h.root, "notes.db"), []byte("plain text, not a database at all......................................................................................."), 0o644); err != nil {
		t.Fatal(err)
	}
	before = listing(t, h.base)
	te := wantErr(t, h.call(t, map[string]string{"database": "notes.db", "query": "SELECT 1 FROM sqlite_master"}), tools.CodeInvalidArgs, "query")
	wantContains(t, te.Reason, "SQLite: ")
	if after := listing(t, h.base); !sameListing(before, after) {
		t.Errorf("files changed:\n%v\n%v", before, after)
	}
}

func TestSQLQuery_T3_SchemaViolations(t *testing.T) {
	h := newSQLHarness(t)
	for args, field := range map[string]string{
		`{"database":"app.db"}`:                                              "",
		`{"query":"SELECT 1"}`:                                               "",
		`{"database":"","query":"SELECT 1"}`:                                 "database",
		`{"database":"app.db","query":""}`:                                   "query",
		`{"database":"app.db","query":1}`:                                    "query",
		`{"database":"app.db","query":"SELECT 1","limit":5}`:                 "",
		`{"database":"app.db","query":"` + strings.Repeat("x", 20001) + `"}`: "query",
	} {
		wantErr(t, h.call(t, args), tools.CodeInvalidArgs, field)
	}
}

// TestSQLQuery_T11_Errors checks SQLite's errors and the time limit as
// structured errors without host paths.
func TestSQLQuery_T11_Errors(t *testing.T) {
	h := newSQLHarness(t)
	te := wantErr(t, h.call(t, map[string]string{"database": "app.db", "query": "SELECT nope FROM users"}), tools.CodeInvalidArgs, "query")
	wantContains(t, te.Reason, "no such column: nope")
	te = wantErr(t, h.call(t, map[string]string{"database": "app.db", "query": "SELECT * FROM missing_table"}), tools.CodeInvalidArgs, "query")
	wantContains(t, te.Reason, "no such table: missing_table")
	wantErr(t, h.call(t, map[string]string{"database": "app.db", "query": "SELECT length(randomblob(999999999))"}), tools.CodeInvalidArgs, "query")

	saved := sqlQueryLimits
	t.Cleanup(func() { sqlQueryLimits = saved })
	sqlQueryLimits.Timeout = 200 * time.Millisecond
	start := time.Now()
	te = wantErr(t, h.call(t, map[string]string{"database": "app.db",
		"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"}), tools.CodeTimeout, "query")
	wantContains(t, te.Recovery, "LIMIT")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the deadline took %s", d)
	}
}
