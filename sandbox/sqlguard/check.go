package sqlguard

import (
	"strings"

	"github.com/agentls/agentls/sandbox"
)

// RuleNotReadOnly is the [sandbox.PolicyError.Rule] of every SQL refusal: the
// query is not exactly one read-only statement.
const RuleNotReadOnly = "sql.not_read_only"

// MaxLen is the longest query, in bytes, that [Check] accepts.
const MaxLen = 100000

// Info describes a query that [Analyze] accepted.
type Info struct {
	// Kind is the statement kind: SELECT, VALUES, WITH, EXPLAIN or PRAGMA.
	Kind string
	// Tables are the tables, views and pragmas the query reads, as far as
	// a token scan can tell (names after FROM and JOIN, the pragma and its
	// argument); at most 16, without the query's own CTE names.
	Tables []string
	// Statement is the query without its trailing semicolons, comments
	// and whitespace: the text that is run.
	Statement string
}

// Check reports whether query is exactly one read-only SQLite
// statement. It is static and does no I/O. A refusal is a [*sandbox.PolicyError]
// with Rule [RuleNotReadOnly] whose Reason names the statement kind.
func Check(query string) error {
	var buf [64]sqlTok
	_, err := analyze(query, buf[:0], false)
	return err
}

// Analyze is [Check] that also describes an accepted query.
func Analyze(query string) (*Info, error) {
	var buf [64]sqlTok
	return analyze(query, buf[:0], true)
}

func analyze(q string, toks []sqlTok, describe bool) (*Info, error) {
	fail := func(reason string) (*Info, error) {
		return nil, &sandbox.PolicyError{Rule: RuleNotReadOnly, Subject: clipQuery(q), Reason: reason}
	}
	if len(q) > MaxLen {
		return fail("the query is longer than 100000 bytes")
	}
	if r := badSQLChars(q); r != "" {
		return fail(r)
	}
	toks, lerr := lexSQL(q, toks)
	if lerr != "" {
		return fail("the query does not parse: " + string(lerr))
	}
	end := 0
	for end < len(toks) && toks[end].kind != tokSemi {
		end++
	}
	for _, t := range toks[end:] {
		if t.kind != tokSemi {
			return fail("the query holds more than one statement; send exactly one")
		}
	}
	stmt := toks[:end]
	if len(stmt) == 0 {
		return fail("the query is empty")
	}
	p := sqlParser{q: q, toks: stmt}
	kind, reason := p.classify()
	if reason != "" {
		return fail(reason)
	}
	if !describe {
		return nil, nil
	}
	info := &Info{Kind: kind, Statement: q[stmt[0].start:stmt[len(stmt)-1].end]}
	info.Tables = p.tables(kind)
	return info, nil
}

// sqlParser walks the tokens of one statement.
type sqlParser struct {
	q    string
	toks []sqlTok
	buf  [48]byte
}

func (p *sqlParser) text(i int) string { return p.q[p.toks[i].start:p.toks[i].end] }

// lower returns the ASCII lower case of token i when it is an identifier:
// a bare word, or, with quoted set, a quoted identifier too (dequoted). It
// returns nil otherwise or when the name is too long to be a keyword or a
// name on a list. The result is only valid until the next call.
func (p *sqlParser) lower(i int, quoted bool) []byte {
	if i >= len(p.toks) {
		return nil
	}
	switch p.toks[i].kind {
	case tokWord:
		return lowerASCII(p.buf[:], p.text(i))
	case tokQuoted:
		if quoted {
			return lowerASCII(p.buf[:], dequote(p.text(i)))
		}
	}
	return nil
}

// isWord reports whether token i is the bare word w (lower case).
func (p *sqlParser) isWord(i int, w string) bool { return string(p.lower(i, false)) == w }

// classify returns the statement kind, or why it is refused.
func (p *sqlParser) classify() (kind, reason string) {
	i := 0
	explain := p.isWord(0, "explain")
	if explain {
		i = 1
		if p.isWord(1, "query") && p.isWord(2, "plan") {
			i = 3
		}
	}
	switch first := p.lower(i, false); string(first) {
	case "select":
		kind = "SELECT"
	case "values":
		kind = "VALUES"
	case "with":
		if r := p.checkWith(i + 1); r != "" {
			return "", r
		}
		kind = "WITH"
	case "pragma":
		if explain {
			return "", "EXPLAIN runs only on SELECT, VALUES and WITH queries"
		}
		return "PRAGMA", p.checkPragma(i + 1)
	case "":
		return "", "the statement does not start with a keyword; only read-only queries (SELECT) run"
	default:
		return "", notReadOnly(strings.ToUpper(shortName(string(first))))
	}
	if r := p.scanBody(i); r != "" {
		return "", r
	}
	if explain {
		return "EXPLAIN", ""
	}
	return kind, ""
}

// notReadOnly is the reason for refusing a statement of kind ("" when it
// has no recognizable kind).
func notReadOnly(kind string) string {
	if kind == "" || kind == "THIS" {
		kind = "this statement"
	}
	return kind + " is not a read-only query; send one SELECT, VALUES, WITH … SELECT, EXPLAIN or introspection PRAGMA"
}

// checkWith finds the main statement after a WITH clause starting at token
// i: the first SELECT or VALUES outside parentheses.
func (p *sqlParser) checkWith(i int) string {
	depth := 0
	for ; i < len(p.toks); i++ {
		switch p.toks[i].kind {
		case tokLParen:
			depth++
		case tokRParen:
			depth--
		case tokWord:
			if depth != 0 {
				continue
			}
			switch w := p.lower(i, false); string(w) {
			case "select", "values":
				return ""
			case "insert", "update", "delete", "replace":
				return notReadOnly("WITH … " + strings.ToUpper(string(w)))
			}
		}
	}
	return "the WITH clause is not followed by a SELECT"
}

// scanBody refuses, anywhere in a SELECT-like statement, the words that
// only a writing statement uses, and dangerous functions and tables.
func (p *sqlParser) scanBody(from int) string {
	for i := from; i < len(p.toks); i++ {
		k := p.toks[i].kind
		if k != tokWord && k != tokQuoted {
			continue
		}
		name := p.lower(i, true)
		if k == tokWord && len(name) >= 4 && sqlNames[string(name)]&nameWrite != 0 {
			return notReadOnly(strings.ToUpper(string(name)))
		}
		call := i+1 < len(p.toks) && p.toks[i+1].kind == tokLParen
		if r := checkSQLName(name, call); r != "" {
			return r
		}
	}
	return ""
}

// checkPragma accepts "[schema.]name" for a read-only pragma, and
// "[schema.]name(arg)" for one that reads about a table or index.
func (p *sqlParser) checkPragma(i int) string {
	if p.lower(i, true) != nil && i+1 < len(p.toks) && p.toks[i+1].kind == tokDot {
		i += 2
	}
	name := string(p.lower(i, true))
	ro, arg := readPragma(name)
	if !ro {
		return "PRAGMA " + shortName(name) + " is not a read-only introspection pragma"
	}
	rest := p.toks[i+1:]
	switch {
	case len(rest) == 0:
		return ""
	case rest[0].kind == tokEq:
		return "PRAGMA assignments change settings; only reading pragmas run"
	case arg && len(rest) == 3 && rest[0].kind == tokLParen && rest[2].kind == tokRParen &&
		rest[1].kind != tokLParen && rest[1].kind != tokRParen:
		return ""
	case rest[0].kind == tokLParen:
		return "PRAGMA " + shortName(name) + " takes no argument here; arguments set values"
	}
	return "the PRAGMA does not parse"
}

// tables lists the names after FROM and JOIN, or the pragma and its
// argument, skipping subqueries and the statement's CTE names.
func (p *sqlParser) tables(kind string) []string {
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		if len(out) < 16 {
			out = append(out, s)
		}
	}
	if kind == "PRAGMA" {
		for i := 1; i < len(p.toks); i++ {
			if k := p.toks[i].kind; k == tokWord || k == tokQuoted || k == tokString {
				add(p.text(i))
			}
		}
		return out
	}
	ctes := map[string]bool{}
	for i := 0; i+2 < len(p.toks); i++ {
		if n := p.lower(i, true); n != nil && p.isWord(i+1, "as") && p.toks[i+2].kind == tokLParen {
			ctes[string(p.lower(i, true))] = true
		}
	}
	for i := 0; i+1 < len(p.toks); i++ {
		if !p.isWord(i, "from") && !p.isWord(i, "join") {
			continue
		}
		j := i + 1
		if p.lower(j, true) != nil && j+2 < len(p.toks) && p.toks[j+1].kind == tokDot {
			j += 2 // schema.table
		}
		if n := p.lower(j, true); n != nil && !ctes[string(n)] && !p.isWord(j, "select") {
			add(p.q[p.toks[i+1].start:p.toks[j].end])
		}
	}
	return out
}
