package prompts

// CompactData fills the compaction prompt (A9).
type CompactData struct {
	Brief    Brief // the run's mode, named in the prompt
	MaxWords int   // the summary's length bound
}

// Compact renders the system prompt of a compaction request. It is the
// instruction layer of A9: it says not to call tools and what the summary
// must keep. The request carries no tools (parameter layer) and the engine
// treats tool calls in the answer as text (fallback).
func Compact(d CompactData) string {
	if d.MaxWords <= 0 {
		d.MaxWords = 600
	}
	return fill("compact.md", "mode", string(d.Brief), "max_words", itoa(d.MaxWords))
}
