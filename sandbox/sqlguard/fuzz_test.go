package sqlguard

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/sandbox"
)

// FuzzCheckSQL checks that Check never panics, is deterministic, agrees
// with Analyze, and that an accepted query is one statement that passes
// again on its own. An accepted query is also run on the fixture: the
// connection's authorizer must not refuse what Check let through, and
// no file may change.
func FuzzCheckSQL(f *testing.F) {
	for _, c := range loadSQLCases(f) {
		f.Add(c.SQL)
	}
	for _, q := range sqlAllowed {
		f.Add(q)
	}
	for _, q := range sqlDenied[:len(sqlDenied)-1] {
		f.Add(q)
	}
	dir := newSQLFixture(f)
	app := dir + "/app.db"
	before := snapshotDir(f, dir)
	f.Fuzz(func(t *testing.T, q string) {
		err := Check(q)
		if (Check(q) == nil) != (err == nil) {
			t.Fatalf("Check(%q) is not deterministic", q)
		}
		info, aerr := Analyze(q)
		if (aerr == nil) != (err == nil) {
			t.Fatalf("Check and Analyze disagree on %q: %v vs %v", q, err, aerr)
		}
		if err != nil {
			if pe, ok := errors.AsType[*sandbox.PolicyError](err); !ok || pe.Rule != RuleNotReadOnly {
				t.Fatalf("Check(%q) = %v; want a sql.not_read_only *sandbox.PolicyError", q, err)
			}
			return
		}
		if !strings.Contains(q, info.Statement) || Check(info.Statement) != nil {
			t.Fatalf("statement %q of %q does not pass on its own", info.Statement, q)
		}
		_, rerr := Query(context.Background(), app, q, Limits{Timeout: 100 * time.Millisecond, MaxRows: 5})
		if pe, ok := errors.AsType[*sandbox.PolicyError](rerr); ok {
			t.Fatalf("Check accepted %q but the authorizer refused it: %v", q, pe)
		}
		if after := snapshotDir(t, dir); !sameSnapshot(before, after) {
			t.Fatalf("%q changed the fixture: %v -> %v", q, before, after)
		}
	})
}

// BenchmarkCheckSQL measures the static check on typical model queries;
// the target is 200,000 checks per second on one core.
func BenchmarkCheckSQL(b *testing.B) {
	queries := []string{
		"SELECT u.name, sum(o.total) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.name HAVING sum(o.total) > 10 ORDER BY 2 DESC",
		"SELECT * FROM users WHERE email LIKE '%@example.com' LIMIT 20",
		"WITH t AS (SELECT user_id, count(*) AS n FROM orders GROUP BY user_id) SELECT * FROM t WHERE n > 1",
		"PRAGMA table_info(users)",
		"UPDATE users SET name = 'x'",
		"SELECT 1 /* ; */; DELETE FROM users",
	}
	size := 0
	for _, q := range queries {
		size += len(q)
	}
	b.SetBytes(int64(size / len(queries)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		_ = Check(queries[i%len(queries)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
	// On a shared machine wall time undercounts: report checks per second
	// of CPU time too.
	if d := cpuTime() - cpu0; d > 0 {
		b.ReportMetric(float64(b.N)/d.Seconds(), "checks/cpu-s")
	}
}
