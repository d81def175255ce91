package lspserver

import (
	"fmt"
	"slices"

	"go.lsp.dev/protocol"
)

// EditSpan is one text edit as byte offsets into the text it applies to.
type EditSpan struct {
	Start, End int
	Text       string
}

// EditSpans returns edits as byte offsets into text, in the order they
// apply (by start, stable), and the length of the text they make. An
// edit out of range, backwards or overlapping another is an error, as for
// [ApplyEdits]. A client that writes the result in pieces (the headless
// one streams a big file: issue 27 item 2) need not build it in memory
// next to text.
func EditSpans(text string, edits []protocol.TextEdit) ([]EditSpan, int, error) {
	spans := make([]EditSpan, 0, len(edits))
	for _, e := range edits {
		s, err := offset(text, e.Range.Start)
		if err != nil {
			return nil, 0, err
		}
		en, err := offset(text, e.Range.End)
		if err != nil {
			return nil, 0, err
		}
		if en < s {
			return nil, 0, fmt.Errorf("edit range ends before it starts")
		}
		spans = append(spans, EditSpan{s, en, e.NewText})
	}
	slices.SortStableFunc(spans, func(a, b EditSpan) int { return a.Start - b.Start })
	size, last := len(text), 0
	for _, sp := range spans {
		if sp.Start < last {
			return nil, 0, fmt.Errorf("edits overlap")
		}
		size += len(sp.Text) - (sp.End - sp.Start)
		last = sp.End
	}
	return spans, size, nil
}
