package builtin

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentls/agentls/sandbox"
	"github.com/agentls/agentls/sandbox/sqlguard"
	"github.com/agentls/agentls/tools"
)

// sql_query output limits.
const (
	sqlMaxValueRunes = 200   // longer values are cut
	sqlMaxChars      = 28000 // output budget, under MaxResultChars so the footer survives
)

// sqlQueryLimits bound every query; tests shorten them.
var sqlQueryLimits = sqlguard.Limits{MaxRows: 500, Timeout: 10 * time.Second, MaxBytes: 256 << 10}

// SQLQuery returns the sql_query tool (B3): one read-only query on an
// SQLite file in the workspace. The query passes [sqlguard.Check] in
// Check and again in Run, and runs on a read-only connection whose
// authorizer refuses every write ([sqlguard.Query]).
//
// Error codes: a database path outside the workspace is path_outside_root;
// a query that is not one read-only statement is sql_not_read_only (the
// reason names the statement kind, never the inner allow-lists); SQLite's
// own errors are invalid_args with SQLite's message; the time limit is
// timeout. Row and size limits are a note in the result, not an error.
func SQLQuery() *tools.Tool {
	return tools.New(tools.Tool{
		Name:        "sql_query",
		Description: description("sql_query"),
		Risk:        tools.RiskRead,
		Schema: json.RawMessage(`{
	"type": "object",
	"additionalProperties": false,
	"required": ["database", "query"],
	"properties": {
		"database": {"type": "string", "minLength": 1, "maxLength": 4096},
		"query": {"type": "string", "minLength": 1, "maxLength": 20000}
	}
}`),
	}, checkSQLQuery, runSQLQuery)
}

type sqlQueryArgs struct {
	Database string `json:"database"`
	Query    string `json:"query"`
}

func runSQLQuery(ctx context.Context, env *tools.Env, a *sqlQueryArgs) (tools.Result, error) {
	_, rel, refusal := sqlCheck(env, a) // again: Run must not trust that Check ran
	if refusal != nil {
		return refusal.Result(), nil
	}
	root, f := openRoot(env)
	if f != nil {
		return f.Result(), nil
	}
	fi, err := root.Stat(rel)
	root.Close()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sqlNotFound(rel), nil
	case err != nil:
		return tools.Fail(tools.CodeInvalidArgs, "database", "cannot access "+rel+": "+errReason(err), ""), nil
	case !fi.Mode().IsRegular():
		return tools.Fail(tools.CodeInvalidArgs, "database", rel+" is not a regular file", "name an SQLite database file"), nil
	}
	res, err := sqlguard.Query(ctx, filepath.Join(env.Root, filepath.FromSlash(rel)), a.Query, sqlQueryLimits)
	if err != nil {
		return sqlFailure(ctx, rel, err)
	}
	return tools.Result{Content: formatSQLResult(res)}, nil
}

func sqlNotFound(rel string) tools.Result {
	return tools.Fail(tools.CodeNotFound, "database", rel+" does not exist",
		"check the path with list_dir or search; sql_query never creates a database")
}

// sqlFailure maps [sqlguard.Query]'s errors to tool errors.
func sqlFailure(ctx context.Context, rel string, err error) (tools.Result, error) {
	var sqlErr *sqlguard.SQLiteError
	pe, isPolicy := errors.AsType[*sandbox.PolicyError](err)
	switch {
	case isPolicy:
		return tools.PolicyRefusal(pe, "query").Result(), nil
	case errors.Is(err, sqlguard.ErrTimeout):
		return tools.Fail(tools.CodeTimeout, "query", fmt.Sprintf("the query ran longer than %s and was interrupted", sqlQueryLimits.Timeout),
			"add a LIMIT, narrow the WHERE clause, or bound the recursion"), nil
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case errors.Is(err, sqlguard.ErrNoDatabase):
		return sqlNotFound(rel), nil
	case errors.As(err, &sqlErr):
		return tools.Fail(tools.CodeInvalidArgs, "query", "SQLite: "+sqlErr.Msg, "fix the query; PRAGMA table_info(name) lists a table's columns"), nil
	}
	return tools.Fail(tools.CodeInternal, "", "the query could not run", ""), nil
}

// formatSQLResult renders rows as a tab-separated table with a header and
// a footer line counting the rows and saying what was cut.
func formatSQLResult(res *sqlguard.Result) string {
	var b strings.Builder
	line := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		line[i] = sqlText(c)
	}
	b.WriteString(strings.Join(line, "\t") + "\n")
	shown := 0
	for _, row := range res.Rows {
		for i, v := range row {
			line[i] = sqlValue(v)
		}
		s := strings.Join(line, "\t") + "\n"
		if b.Len()+len(s) > sqlMaxChars {
			break
		}
		b.WriteString(s)
		shown++
	}
	n := len(res.Rows)
	switch {
	case shown < n:
		fmt.Fprintf(&b, "(%d of %d rows shown; output limit reached: select fewer columns or add LIMIT/OFFSET)", shown, n)
	case res.Truncated && n >= sqlQueryLimits.MaxRows:
		fmt.Fprintf(&b, "(%d rows, truncated at %d)", n, sqlQueryLimits.MaxRows)
	case res.Truncated:
		fmt.Fprintf(&b, "(%d rows, truncated at %d KB of data)", n, sqlQueryLimits.MaxBytes>>10)
	case n == 1:
		b.WriteString("(1 row)")
	default:
		fmt.Fprintf(&b, "(%d rows)", n)
	}
	return b.String()
}

// sqlValue renders one value: NULL, a number, text, or x'hex' for a blob.
func sqlValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return sqlText(x)
	case []byte:
		const max = sqlMaxValueRunes/2 - 4
		if len(x) > max {
			return fmt.Sprintf("x'%s'… (%d bytes)", hex.EncodeToString(x[:max]), len(x))
		}
		return "x'" + hex.EncodeToString(x) + "'"
	}
	return sqlText(fmt.Sprint(v))
}

// sqlText escapes tabs, newlines and other control characters so each
// row stays one line, and cuts long text.
func sqlText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexFunc(s, func(r rune) bool { return r == '\\' || unicode.IsControl(r) }) >= 0 {
		var b strings.Builder
		for _, r := range s {
			switch {
			case r == '\\':
				b.WriteString(`\\`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case unicode.IsControl(r):
				fmt.Fprintf(&b, `\x%02x`, r)
			default:
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	return cut(s, sqlMaxValueRunes)
}

// oneLine collapses whitespace runs to one space, replaces control and
// formatting characters (which could spoof what a reviewer reads) and
// cuts s to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return '\uFFFD'
		}
		return r
	}, s)
	return cut(s, n)
}
