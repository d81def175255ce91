package builtin

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSearch_B1_Paging: a result shows 100 matches, says how many more
// there are in how many files, and offset pages through them in walk
// order; every match is shown exactly once.
func TestSearch_B1_Paging(t *testing.T) {
	h := newHarness(t)
	for f := range 5 { // p/f0.txt … p/f4.txt, 50 matches each
		var b strings.Builder
		for i := range 50 {
			fmt.Fprintf(&b, "hit %d.%d\n", f, i)
		}
		h.write(t, fmt.Sprintf("p/f%d.txt", f), b.String())
	}
	got := wantOK(t, h.call(t, "search", `{"pattern":"^hit","path":"p"}`))
	wantContains(t, got, "p/f1.txt:50: hit 1.49\n(more matches cut after 100: 150 more in 3 files; call again with offset=100)")
	got = wantOK(t, h.call(t, "search", `{"pattern":"^hit","path":"p","offset":130}`))
	lines := strings.Split(got, "\n")
	if len(lines) != 101 {
		t.Fatalf("page at offset 130: %d lines\n%s", len(lines), got)
	}
	if lines[0] != "p/f2.txt:31: hit 2.30" || lines[99] != "p/f4.txt:30: hit 4.29" ||
		lines[100] != "(more matches cut after 230: 20 more in 1 file; call again with offset=230)" {
		t.Errorf("page at offset 130:\n%s", got)
	}
	seen := map[string]bool{}
	for off := 0; ; off += 100 {
		page := wantOK(t, h.call(t, "search", fmt.Sprintf(`{"pattern":"hit","path":"p","offset":%d}`, off)))
		for _, l := range strings.Split(page, "\n") {
			if !strings.HasPrefix(l, "(") {
				if seen[l] {
					t.Errorf("%s shown twice", l)
				}
				seen[l] = true
			}
		}
		if !strings.Contains(page, "offset=") {
			break
		}
	}
	if len(seen) != 250 {
		t.Errorf("%d distinct matches over all pages; want 250", len(seen))
	}
	if got := wantOK(t, h.call(t, "search", `{"pattern":"hit","path":"p","offset":300}`)); got != "no matches after offset 300 (250 in all)" {
		t.Errorf("past the end = %q", got)
	}
}

// TestSearch_B1_BudgetSaysWhatWasNotSearched: when the time budget is
// spent the result says so and counts the files not searched, by the
// directory under the searched path they are in; when counting them runs
// out of time too, it says "at least".
func TestSearch_B1_BudgetSaysWhatWasNotSearched(t *testing.T) {
	h := newHarness(t)
	for i := range 3 {
		h.write(t, fmt.Sprintf("w/a/f%d.txt", i), "needle\n")
	}
	h.write(t, "w/b/x/y.txt", "needle\n")
	h.write(t, "w/b/z.txt", "needle\n")
	h.write(t, "w/top.txt", "needle\n")
	defer func(b, c time.Duration) { searchBudget, searchCountBudget = b, c }(searchBudget, searchCountBudget)
	searchBudget, searchCountBudget = -time.Hour, 2*time.Hour // spent before the walk starts; counting may finish
	got := wantOK(t, h.call(t, "search", `{"pattern":"needle","path":"w"}`))
	want := "(stopped after -1h0m0s: 6 files not searched, in w/a/ (3), w/b/ (2), w/top.txt (1); narrow the path)"
	if got != want {
		t.Errorf("search = %q\nwant     %q", got, want)
	}
	searchCountBudget = 0 // counting ends at once too
	got = wantOK(t, h.call(t, "search", `{"pattern":"needle","path":"w"}`))
	wantContains(t, got, "at least 1 file not searched, in w/a/ (1)")
	if strings.Contains(got, "w/a/f0.txt:") {
		t.Errorf("searched after the budget: %q", got)
	}
}

// TestSearch_B1_PagingInsideOneFile: workers keep the first 100 matches
// of a file; a page that starts past them reads that file again, so
// memory does not grow with offset and the page is still exact.
func TestSearch_B1_PagingInsideOneFile(t *testing.T) {
	h := newHarness(t)
	var b strings.Builder
	for i := range 250 {
		fmt.Fprintf(&b, "row %d\n", i)
	}
	h.write(t, "big/a.txt", b.String())
	h.write(t, "big/b.txt", "row last\n")
	got := wantOK(t, h.call(t, "search", `{"pattern":"row","path":"big","offset":180}`))
	lines := strings.Split(got, "\n")
	if len(lines) != 71 || lines[0] != "big/a.txt:181: row 180" || lines[69] != "big/a.txt:250: row 249" || lines[70] != "big/b.txt:1: row last" {
		t.Errorf("page at offset 180:\n%s", got)
	}
	got = wantOK(t, h.call(t, "search", `{"pattern":"row","path":"big","offset":120}`))
	wantContains(t, got, "big/a.txt:121: row 120\n", "big/a.txt:220: row 219\n(more matches cut after 220: 31 more in 2 files; call again with offset=220)")
}
