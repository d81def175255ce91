package sqlguard

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentls/agentls/sandbox/sqlguard/sqlguardtest"
)

// sqlCase is one line of testdata/sql.jsonl.
type sqlCase struct {
	SQL      string `json:"sql"`
	Expect   string `json:"expect"` // allow or deny
	Why      string `json:"why"`
	Category string `json:"category"`
	Soft     bool   `json:"soft"`
}

func loadSQLCases(t testing.TB) []sqlCase {
	t.Helper()
	f, err := os.Open("testdata/sql.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []sqlCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c sqlCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("sql.jsonl: %v", err)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatal("sql.jsonl: no cases")
	}
	return cases
}

// sqlFixture is the README's SQL fixture, with a few rows.
var sqlFixture = append(slices.Clone(sqlguardtest.Schema),
	"INSERT INTO users VALUES (1, 'ann', 'ann@example.com', 'h1'), (2, 'bob', 'bob@example.com', 'h2'), (3, 'cy', NULL, 'h3')",
	"INSERT INTO orders VALUES (1, 1, 12.5, '2026-01-01'), (2, 1, 3, '2026-01-02'), (3, 2, 40, '2026-02-01')",
)

// newSQLFixture creates app.db (the fixture) and other.db (for the ATTACH
// cases) in a fresh directory and returns its absolute path.
func newSQLFixture(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sqlguardtest.Create(t, filepath.Join(dir, "app.db"), sqlFixture...)
	sqlguardtest.Create(t, filepath.Join(dir, "other.db"), "CREATE TABLE secrets(s TEXT)", "INSERT INTO secrets VALUES ('other-secret')")
	return dir
}

// fileState is what a snapshot records of one file.
type fileState struct {
	Size int64
	Mod  int64
	Sum  [sha256.Size]byte
}

func (s fileState) String() string { return fmt.Sprintf("%d bytes %x", s.Size, s.Sum[:4]) }

// outsideWatch are the files the README's deny cases must not create.
var outsideWatch = []string{"/tmp/evil.db", "/tmp/copy*.db", "/tmp/pwn", "/tmp/agentls-sqltest-*"}

// snapshotDir records every file under dir, and which watched files
// outside it exist.
func snapshotDir(t testing.TB, dir string) map[string]fileState {
	t.Helper()
	snap := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{Size: fi.Size(), Mod: fi.ModTime().UnixNano()}
		if fi.Mode().IsRegular() { // never read a FIFO
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st.Sum = sha256.Sum256(b)
		}
		snap[p] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pat := range outsideWatch {
		m, _ := filepath.Glob(pat)
		for _, p := range m {
			snap[p] = fileState{Size: -1}
		}
	}
	return snap
}

func sameSnapshot(a, b map[string]fileState) bool { return maps.Equal(a, b) }
