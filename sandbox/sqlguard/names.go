package sqlguard

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// The name lists shared by the static check ([Check]) and the
// connection's authorizer. Names are compared in ASCII lower case, as
// SQLite compares them.

// readPragmas are the pragmas a query may run; true marks those that take
// a table or index name, or a count, as their argument and never set
// anything with it. The others run only without an argument: with one they
// set a value.
var readPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true,
	"index_list": true, "index_info": true, "index_xinfo": true,
	"foreign_key_list": true, "foreign_key_check": true,
	"integrity_check": true, "quick_check": true,
	"collation_list": false, "function_list": false, "module_list": false, "pragma_list": false,
	"compile_options": false, "encoding": false, "user_version": false, "page_count": false,
	"page_size": false, "freelist_count": false, "data_version": false,
}

// readPragma reports whether name is a read-only pragma and whether it
// may take an argument.
func readPragma(name string) (readOnly, arg bool) {
	arg, readOnly = readPragmas[name]
	return readOnly, arg
}

// Flags of the names in sqlNames.
const (
	nameWrite       = 1 << iota // a reserved word only writing statements use
	nameDeniedFunc              // a function that reaches outside the database or loads code
	nameDeniedTable             // a virtual table (or table-valued function) over files or raw pages
)

// sqlNames holds every listed name, so one lookup classifies an identifier.
var sqlNames = map[string]uint8{
	"insert": nameWrite, "update": nameWrite, "delete": nameWrite, "create": nameWrite,
	"drop": nameWrite, "alter": nameWrite, "into": nameWrite, "returning": nameWrite, "commit": nameWrite,

	"load_extension": nameDeniedFunc, "fts3_tokenizer": nameDeniedFunc, "fts5_tokenizer": nameDeniedFunc,
	"readfile": nameDeniedFunc, "writefile": nameDeniedFunc, "edit": nameDeniedFunc,
	"sqlar_compress": nameDeniedFunc, "sqlar_uncompress": nameDeniedFunc,

	"sqlite_dbpage": nameDeniedTable, "sqlite_dbdata": nameDeniedTable, "sqlite_dbptr": nameDeniedTable,
	"fsdir": nameDeniedTable, "lsdir": nameDeniedTable, "zipfile": nameDeniedTable,
}

// sqliteReaders are the sqlite_* functions a query may call.
var sqliteReaders = map[string]bool{
	"sqlite_version": true, "sqlite_source_id": true, "sqlite_offset": true,
	"sqlite_compileoption_used": true, "sqlite_compileoption_get": true,
}

// checkSQLName says why the identifier name (lower case) may not appear in
// a query, or "" when it may; call is set when it is followed by "(".
func checkSQLName(name []byte, call bool) string {
	if name == nil {
		return ""
	}
	if len(name) < 4 {
		return "" // shorter than every listed name
	}
	f := sqlNames[string(name)]
	if f&nameDeniedTable != 0 || call && f&nameDeniedFunc != 0 {
		return string(name) + " is not available to read-only queries"
	}
	if call && bytes.HasPrefix(name, []byte("sqlite_")) && !sqliteReaders[string(name)] {
		return "the internal function " + shortName(string(name)) + " is not available to read-only queries"
	}
	if bytes.HasPrefix(name, []byte("pragma_")) {
		if ro, _ := readPragma(string(name[len("pragma_"):])); !ro {
			return shortName(string(name)) + " is not a read-only introspection pragma"
		}
	}
	return ""
}

// authorizedFunction reports whether the authorizer lets a query call the
// function name.
func authorizedFunction(name string) bool {
	var buf [64]byte
	b := lowerASCII(buf[:], name)
	if b == nil {
		return true // longer than any name on the lists
	}
	return checkSQLName(b, true) == ""
}

// authorizedTable reports whether the authorizer lets a query read table.
func authorizedTable(table string) bool {
	var buf [64]byte
	b := lowerASCII(buf[:], table)
	return b == nil || checkSQLName(b, false) == ""
}

// badSQLChars says why q cannot be a query, or "" when it can: invalid
// UTF-8, NUL and other control characters but tab, CR and LF, and the
// bidirectional controls that make text display differently from how it
// parses.
func badSQLChars(q string) string {
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c < 0x80 {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return "the query contains a control character"
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return "the query is not valid UTF-8"
		case r >= 0x80 && r < 0xa0, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
			r == 0x200e, r == 0x200f, r == 0x061c, r == 0xfeff:
			return "the query contains a control or bidirectional formatting character"
		}
		i += size - 1
	}
	return ""
}

// clipQuery cuts a refused query to 200 bytes for a sandbox.PolicyError subject.
func clipQuery(q string) string {
	if len(q) <= 200 {
		return q
	}
	return strings.ToValidUTF8(q[:200], "") + "…"
}

// shortName returns s when it is a short ASCII name that is safe to echo
// in a reason, otherwise "this".
func shortName(s string) string {
	if len(s) > 40 || len(s) == 0 {
		return "this"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z') {
			return "this"
		}
	}
	return s
}
