package sqlguard

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// sqlAllowed are read-only statements Check must accept (B3).
var sqlAllowed = []string{
	"SELECT 1", "select 1;", "SELECT 1 ; ; ", "SELECT 1 -- trailing comment", "SELECT 1 /* c */",
	"SELECT 1; -- done", "SELECT 1 /* unclosed comment runs to the end, as in SQLite",
	"SELECT 'DROP TABLE x'", "SELECT 'a;b', 'it''s; ok'", `SELECT "weird;name" FROM users`,
	"SELECT [x;y] FROM users", "SELECT `a``;b` FROM users", "SELECT x'00ff', X''",
	"SELECT 1.5e-3, .5, 0x1F, 1_000, 1e10", "VALUES (1), (2)",
	"WITH x AS (SELECT 1) SELECT * FROM x",
	"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 5) SELECT x FROM c",
	"WITH a AS MATERIALIZED (SELECT 1), b AS NOT MATERIALIZED (VALUES (2)) SELECT * FROM a, b",
	"SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x)",
	"EXPLAIN SELECT 1", "explain query plan select * from users",
	"PRAGMA table_info(users)", "PRAGMA main.table_info('users')", `PRAGMA "table_xinfo"(users)`,
	"PRAGMA integrity_check", "PRAGMA quick_check(10)", "PRAGMA user_version", "PRAGMA compile_options;",
	"PRAGMA index_list(users)", "PRAGMA foreign_key_list(orders)", "PRAGMA table_list",
	"SELECT replace(name, 'a', 'b') FROM users", "SELECT CASE WHEN 1 THEN 2 ELSE 3 END",
	"SELECT * FROM pragma_table_info('users')", "SELECT sqlite_version(), sqlite_source_id()",
	"SELECT json_extract('{\"a\":1}', '$.a')", `SELECT name AS "update" FROM users`,
	`SELECT "delete", [insert], ` + "`drop`" + ` FROM t`, "SELECT begin, release, analyze FROM t",
	"SELECT a->>'$.x', a -> 'y' FROM t", "SELECT 'ＳＥＬＥＣＴ; DROP'", "SELECT 'a' || 'b'",
	"SELECT x FROM t WHERE x != 1 AND y <> 2 OR z <= 3 AND w == 4 AND v >= 5 AND (u << 1) > 0",
	"SELECT edit, readfile FROM t", "SELECT * FROM users u JOIN orders o ON o.user_id = u.id",
	"SELECT 'é', 'ø' AS ñ",
}

// sqlDenied are statements Check must refuse (B3, T5).
var sqlDenied = []string{
	"", "   ", ";", "; SELECT 1", "-- only a comment", "/* */", "SELECT 1; SELECT 2",
	"SELECT/**/1;DROP TABLE x", "SELECT 1;\nDELETE FROM users", "SELECT 1 -- c\n; DROP TABLE t",
	"SELECT 1 /* ; */; DELETE FROM users", "sElEcT 1; dRoP tAbLe users", "SELECT 'a';'b'",
	"SELECT 'unterminated", `SELECT "x`, "SELECT [x", "SELECT `x", "SELECT x'abc'", "SELECT x'zz'",
	"DROP TABLE users", "delete from users", "UPDATE users SET name = 'x'",
	"REPLACE INTO users VALUES (1, 'a', 'b', 'c')", "INSERT OR REPLACE INTO users(id) VALUES (1)",
	"INSERT INTO users SELECT * FROM users RETURNING *", "CREATE TEMP TABLE t AS SELECT * FROM users",
	"CREATE TEMP VIEW v AS SELECT 1", "CREATE TRIGGER tr AFTER INSERT ON users BEGIN SELECT 1; END",
	"CREATE VIRTUAL TABLE temp.f USING fts5(a)", "CREATE INDEX i ON users(name)", "ALTER TABLE users ADD COLUMN x",
	"ATTACH DATABASE '/tmp/evil.db' AS e", "ATTACH 'file:/tmp/evil.db?mode=rwc' AS e",
	"attach 'other' || '.db' as o", "DETACH o", "DETACH DATABASE o",
	"VACUUM", "VACUUM INTO '/tmp/copy.db'", "vacuum main into '/tmp/copy2.db'", "REINDEX", "ANALYZE",
	"BEGIN", "BEGIN IMMEDIATE", "COMMIT", "END", "ROLLBACK", "SAVEPOINT s", "RELEASE s",
	"PRAGMA query_only=0", "PRAGMA main.query_only = 0", "PRAGMA query_only(0)", "PRAGMA query_only",
	"PRAGMA writable_schema=1", "PRAGMA journal_mode=DELETE", "PRAGMA journal_mode",
	"PRAGMA user_version=7", "PRAGMA user_version(7)", "PRAGMA user_version = ''", "PRAGMA optimize",
	"PRAGMA wal_checkpoint", "PRAGMA incremental_vacuum", "PRAGMA foreign_keys = OFF",
	"PRAGMA table_info = users", "PRAGMA table_info(users) x", "PRAGMA table_info((users))",
	"PRAGMA", `PRAGMA "query_only"=0`, "PRAGMA database_list", "PRAGMA temp_store_directory",
	"EXPLAIN DELETE FROM users", "EXPLAIN PRAGMA table_info(users)", "EXPLAIN QUERY PLAN INSERT INTO users(id) VALUES (1)",
	"EXPLAIN", "WITH x AS (SELECT 1) DELETE FROM users", "WITH x AS (SELECT 1) INSERT INTO users(id) SELECT * FROM x",
	"WITH x AS (SELECT 1) REPLACE INTO users(id) SELECT * FROM x", "WITH x AS (SELECT 1) UPDATE users SET id = 1",
	"WITH x AS (UPDATE users SET name = 1 RETURNING *) SELECT * FROM x",
	"WITH x AS (DELETE FROM users RETURNING *) SELECT * FROM x",
	"WITH a AS (WITH b AS (DELETE FROM users RETURNING 1) SELECT * FROM b) SELECT * FROM a",
	"WITH x AS (SELECT 1)", "SELECT * INTO t2 FROM users", "SELECT 1 UNION SELECT 2 RETURNING 1",
	"SELECT load_extension('x')", "SELECT LOAD_EXTENSION('x')", `SELECT "load_extension"('x')`,
	"SELECT [load_extension]('x')", "SELECT `load_extension` ('x')", "SELECT load_extension /* */ ('x')",
	"SELECT * FROM (SELECT load_extension('./evil'))", "SELECT 1 WHERE load_extension('e') IS NULL",
	"SELECT fts3_tokenizer('simple', x'00')", "SELECT readfile('/etc/passwd')",
	"SELECT writefile('/tmp/pwn', 'x')", "SELECT edit('x')", "SELECT * FROM fsdir('/')",
	"SELECT * FROM sqlite_dbpage", "SELECT * FROM main.sqlite_dbpage", `SELECT * FROM "SQLITE_DBPAGE"`,
	"SELECT * FROM pragma_optimize", "SELECT * FROM pragma_query_only", "SELECT sqlite_rename_column(1)",
	"ＳＥＬＥＣＴ 1", "\u017felect 1", "SELECT\u00a01", "SELECT 1\x00; DROP TABLE t", "SELECT 1\x0b",
	"SELECT 1\f", "SELECT '\u202e'", "SELECT 1 \u2066", "SELECT 1 + ?", "SELECT ?1", "SELECT :x", "SELECT @x",
	"SELECT $a(');DROP TABLE users;--')", "SELECT 0xe--'\n; DROP TABLE users; --'",
	"\xff\xfe", "SELECT '\xff'", "SELECT 1 \\ 2", "SELECT 1 ^ 2", "SELECT {1}", "SELECT 1 !",
	"GRANT ALL ON x TO y", "SHOW TABLES", "select\t1;\n;\ndelete from users",
	strings.Repeat("SELECT 1 UNION ALL ", 6000) + "SELECT 1",
}

func TestCheckSQL_B3_Allowed(t *testing.T) {
	for _, q := range sqlAllowed {
		if err := Check(q); err != nil {
			t.Errorf("Check(%q) = %v; want allowed", q, err)
		}
	}
}

func TestCheckSQL_B3_T5_Denied(t *testing.T) {
	for _, q := range sqlDenied {
		err := Check(q)
		pe, ok := errors.AsType[*sandbox.PolicyError](err)
		if !ok {
			t.Errorf("Check(%.80q) = %v; want a *sandbox.PolicyError", q, err)
			continue
		}
		if pe.Rule != RuleNotReadOnly || pe.Reason == "" {
			t.Errorf("Check(%.80q): rule %q reason %q", q, pe.Rule, pe.Reason)
		}
		if len(pe.Subject) > 210 {
			t.Errorf("Check(%.80q): subject not clipped (%d bytes)", q, len(pe.Subject))
		}
	}
}

// TestCheckSQL_T11_Reasons checks that a refusal names the statement kind
// and stays short, without the list of allowed pragmas or functions.
func TestCheckSQL_T11_Reasons(t *testing.T) {
	cases := map[string]string{
		"UPDATE users SET name = 'x'":                      "UPDATE",
		"WITH x AS (SELECT 1) DELETE FROM users":           "WITH … DELETE",
		"SELECT 1; DROP TABLE t":                           "more than one statement",
		"VACUUM INTO '/tmp/copy.db'":                       "VACUUM",
		"PRAGMA user_version = 7":                          "assignment",
		"PRAGMA optimize":                                  "PRAGMA optimize",
		"SELECT load_extension('x')":                       "load_extension",
		"ＳＥＬＥＣＴ 1":                                         "this statement",
		"INSERT INTO users SELECT 1 RETURNING *":           "INSERT",
		"SELECT * FROM users RETURNING *":                  "RETURNING",
		"DROP TABLE \"x\"; -- " + strings.Repeat("y", 300): "DROP",
	}
	for q, want := range cases {
		pe, ok := errors.AsType[*sandbox.PolicyError](Check(q))
		if !ok {
			t.Fatalf("Check(%q) allowed", q)
		}
		if !strings.Contains(pe.Reason, want) {
			t.Errorf("Check(%q) reason %q; want it to mention %q", q, pe.Reason, want)
		}
		if strings.Contains(pe.Reason, "table_xinfo") || strings.Contains(pe.Reason, "fts3") || len(pe.Reason) > 200 {
			t.Errorf("Check(%q) reason leaks the rule lists or is long: %q", q, pe.Reason)
		}
	}
}

func TestAnalyzeSQL_T6_Describes(t *testing.T) {
	cases := []struct {
		q, kind, stmt string
		tables        []string
	}{
		{"  SELECT * FROM users; -- x\n", "SELECT", "SELECT * FROM users", []string{"users"}},
		{"SELECT u.name FROM main.users u JOIN orders o ON 1 /* c */ ;;", "SELECT",
			"SELECT u.name FROM main.users u JOIN orders o ON 1", []string{"main.users", "orders"}},
		{"WITH t AS (SELECT 1 FROM orders) SELECT * FROM t, (SELECT 2)", "WITH", "", []string{"orders"}},
		{"EXPLAIN QUERY PLAN SELECT * FROM v_user_totals", "EXPLAIN", "", []string{"v_user_totals"}},
		{"PRAGMA table_info(users)", "PRAGMA", "", []string{"table_info", "users"}},
		{"VALUES (1)", "VALUES", "VALUES (1)", nil},
	}
	for _, c := range cases {
		info, err := Analyze(c.q)
		if err != nil {
			t.Fatalf("Analyze(%q): %v", c.q, err)
		}
		if info.Kind != c.kind || !slices.Equal(info.Tables, c.tables) || c.stmt != "" && info.Statement != c.stmt {
			t.Errorf("Analyze(%q) = %+v; want kind %s tables %v statement %q", c.q, info, c.kind, c.tables, c.stmt)
		}
	}
}
