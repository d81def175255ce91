package builtin

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// fileResult is what a worker found in one file.
type fileResult struct {
	rel, part  string
	count      int         // matching lines
	lines      []matchLine // the first limit of them
	via        string      // set when there are more: what to read again,
	ws         bool        // through the workspace or from the disk
	unsearched bool        // the budget ran out before the file was read
}

// searchOut builds the result of a search from the files in walk order:
// the page of matches [offset, offset+limit), the count of the rest, and
// what was not searched.
type searchOut struct {
	offset, limit int
	b             strings.Builder
	total         int // matches seen so far, in walk order
	moreFiles     int // files with matches after the page
	walkCounts
	budgetHit bool
	// reread gives the matching lines [from, to) of a file whose page
	// starts past the lines its worker kept.
	reread func(r *fileResult, from, to int) []matchLine
	// slots bounds the batches handed out and not yet added: the walker
	// takes one per batch, collect gives it back, so results waiting for
	// an earlier batch stay few.
	slots chan struct{}
}

func newSearchOut(offset, limit int) *searchOut {
	return &searchOut{offset: offset, limit: limit, walkCounts: walkCounts{notSearched: map[string]int{}},
		slots: make(chan struct{}, searchInFlight)}
}

// collect adds the results in walk order, whatever order the batches
// come in; it holds at most the batches still in flight.
func (o *searchOut) collect(results <-chan resultBatch) {
	pending := map[int][]fileResult{}
	next := 0
	for b := range results {
		pending[b.n] = b.results
		for rs, ok := pending[next]; ok; rs, ok = pending[next] {
			delete(pending, next)
			next++
			for i := range rs {
				o.add(&rs[i])
			}
			<-o.slots
		}
	}
}

// add counts and shows the matches of one file.
func (o *searchOut) add(r *fileResult) {
	if r.unsearched {
		o.notSearched[r.part]++
		o.budgetHit = true
		return
	}
	from := max(0, o.offset-o.total)             // the file's first line on the page
	to := min(r.count, o.offset+o.limit-o.total) // and the end
	o.total += r.count
	if r.count > 0 && o.total > o.offset+o.limit { // its last match is past the page
		o.moreFiles++
	}
	if from >= to {
		return
	}
	var lines []matchLine
	if to <= len(r.lines) {
		lines = r.lines[from:to]
	} else { // the page starts past the lines the worker kept
		lines = o.reread(r, from, to)
	}
	for _, l := range lines {
		fmt.Fprintf(&o.b, "%s:%d: %s\n", displayName(r.rel), l.n, l.text)
	}
}

// merge adds what the walk counted itself.
func (o *searchOut) merge(w *walkCounts) {
	o.secrets += w.secrets
	o.countCut = w.countCut
	for k, n := range w.notSearched {
		o.notSearched[k] += n
		o.budgetHit = true
	}
}

// text is the result for the model.
func (o *searchOut) text(offset int) string {
	if o.secrets > 0 {
		// Issue 10 item 14: a directory search does not read what read_file
		// would ask about; searching such a file by its path asks.
		fmt.Fprintf(&o.b, "(%d files that may hold credentials were not searched; name one as path to ask the user)\n", o.secrets)
	}
	end := o.offset + o.limit
	if more := o.total - end; more > 0 {
		fmt.Fprintf(&o.b, "(more matches cut after %d: %d more in %d %s; call again with offset=%d)\n",
			end, more, o.moreFiles, plural(o.moreFiles, "file", "files"), end)
	}
	if o.budgetHit {
		o.b.WriteString(o.notSearchedNote())
	}
	if o.b.Len() == 0 {
		if o.total > 0 {
			return fmt.Sprintf("no matches after offset %d (%d in all)", offset, o.total)
		}
		return "no matches"
	}
	return strings.TrimSuffix(o.b.String(), "\n")
}

// notSearchedNote says what the time budget left out, largest parts first.
func (o *searchOut) notSearchedNote() string {
	n := 0
	for _, c := range o.notSearched {
		n += c
	}
	parts := slices.SortedFunc(maps.Keys(o.notSearched), func(a, b string) int {
		return cmp.Or(cmp.Compare(o.notSearched[b], o.notSearched[a]), strings.Compare(a, b))
	})
	var where []string
	for i, p := range parts {
		if i == 5 {
			where = append(where, "…")
			break
		}
		where = append(where, fmt.Sprintf("%s (%d)", displayName(p), o.notSearched[p]))
	}
	atLeast := ""
	if o.countCut {
		atLeast = "at least "
	}
	return fmt.Sprintf("(stopped after %s: %s%d %s not searched, in %s; narrow the path)\n",
		searchBudget, atLeast, n, plural(n, "file", "files"), strings.Join(where, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
