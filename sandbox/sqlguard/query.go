package sqlguard

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/sandbox"
)

// Limits bounds one query. Zero fields take their defaults.
type Limits struct {
	MaxRows  int           // rows returned; default 500
	Timeout  time.Duration // wall time, including opening; default 10 s
	MaxBytes int           // result size, roughly the bytes of the values; default 256 KB
}

// Result is what a query returned. Values are int64, float64, string,
// []byte or nil; a string or blob longer than MaxBytes is cut.
type Result struct {
	Columns   []string
	Rows      [][]any
	Truncated bool // more rows exist than MaxRows or MaxBytes allowed
}

// SQLiteError is an error SQLite reported for the query (syntax, unknown
// table, a limit). Msg is SQLite's message; it holds no host path.
type SQLiteError struct{ Msg string }

func (e *SQLiteError) Error() string { return e.Msg }

// ErrTimeout is returned when a query ran past its time limit and was
// interrupted. It matches [context.DeadlineExceeded] with [errors.Is].
var ErrTimeout = sqlTimeout{}

type sqlTimeout struct{}

func (sqlTimeout) Error() string        { return "the query ran past its time limit and was interrupted" }
func (sqlTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// ErrNoDatabase is returned when the database file does not exist; no
// file is created.
var ErrNoDatabase = errors.New("the database file does not exist")

// Query runs one read-only query on the existing SQLite file at the
// absolute path, whose containment the caller has checked. Every layer
// refuses writes on its own: [Check]; a read-only, query_only,
// defensive connection that cannot create the file or attach another; and
// an authorizer that allows only reads, read-only functions and
// introspection pragmas. A deadline interrupts the query.
//
// Refusals are [*sandbox.PolicyError] values; SQLite's errors are [*SQLiteError];
// a query that hit lim.Timeout gives [ErrTimeout], one whose ctx ended
// gives ctx.Err().
func Query(ctx context.Context, path, query string, lim Limits) (*Result, error) {
	info, err := Analyze(query)
	if err != nil {
		return nil, err
	}
	return runSQL(ctx, path, info.Statement, lim)
}

// runSQL is Query after the static check; tests call it directly to
// show that the connection alone refuses writes.
func runSQL(ctx context.Context, path, stmt string, lim Limits) (*Result, error) {
	lim = lim.withDefaults()
	if !filepath.IsAbs(path) {
		return nil, errors.New("sandbox: the database path is not absolute")
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ErrNoDatabase
	case err != nil:
		return nil, &SQLiteError{Msg: "the database file cannot be accessed"}
	case !fi.Mode().IsRegular():
		return nil, &SQLiteError{Msg: "the database is not a regular file"}
	}
	qctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	auth := &authorizer{}
	conn, it, closeAll, err := openReadOnly(qctx, sqliteDSN(path, idleWAL(path)), auth)
	if err != nil {
		return nil, sqlFailure(ctx, qctx, auth, stmt, err)
	}
	stop := it.watch(qctx)
	defer func() { stop(); closeAll() }()

	rows, err := conn.QueryContext(qctx, stmt)
	if err != nil {
		return nil, sqlFailure(ctx, qctx, auth, stmt, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, sqlFailure(ctx, qctx, auth, stmt, err)
	}
	res := &Result{Columns: cols}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	size := 0
	for rows.Next() {
		if len(res.Rows) == lim.MaxRows || size >= lim.MaxBytes {
			res.Truncated = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, sqlFailure(ctx, qctx, auth, stmt, err)
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			row[i], size = clipValue(v, lim.MaxBytes, size)
		}
		res.Rows = append(res.Rows, row)
	}
	err = rows.Err()
	if err == nil && !res.Truncated {
		err = qctx.Err()
	}
	switch {
	case err == nil:
		return res, nil
	case len(res.Rows) == lim.MaxRows && qctx.Err() != nil && ctx.Err() == nil:
		// The deadline hit while looking for a row past the limit.
		res.Truncated = true
		return res, nil
	}
	return nil, sqlFailure(ctx, qctx, auth, stmt, err)
}

func (l Limits) withDefaults() Limits {
	if l.MaxRows <= 0 {
		l.MaxRows = 500
	}
	if l.Timeout <= 0 {
		l.Timeout = 10 * time.Second
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 256 << 10
	}
	return l
}

// sqliteDSN is a read-only URI for path. The path is escaped, so a '?' or
// '#' in a file name cannot add URI parameters. immutable opens the file
// without locks or shared memory.
func sqliteDSN(path string, immutable bool) string {
	u := url.URL{Path: filepath.ToSlash(path)}
	dsn := "file:" + u.EscapedPath() + "?mode=ro&_query_only=1&_defensive=1&_pragma=trusted_schema(0)"
	if immutable {
		dsn += "&immutable=1"
	}
	return dsn
}

// idleWAL reports whether path is a WAL-mode database that no connection
// has open: no -wal or -shm file next to it. A read-only connection to it
// would create both files and leave them behind; opened immutable it
// creates nothing, and there is no newer content to miss.
func idleWAL(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	var hdr [20]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return false
	}
	if string(hdr[:16]) != "SQLite format 3\x00" || hdr[18] != 2 || hdr[19] != 2 {
		return false
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(path + suffix); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}

// clipValue cuts a long string or blob to max bytes and adds its size to
// size.
func clipValue(v any, max, size int) (any, int) {
	switch x := v.(type) {
	case string:
		if len(x) > max {
			x = strings.ToValidUTF8(x[:max], "")
		}
		return x, size + len(x)
	case []byte:
		if len(x) > max/2 {
			x = x[:max/2]
		}
		return x, size + 2*len(x)
	}
	return v, size + 8
}

// sqlFailure turns an error from the driver into Query's errors.
func sqlFailure(ctx, qctx context.Context, auth *authorizer, stmt string, err error) error {
	if what := auth.denied.Load(); what != nil {
		return &sandbox.PolicyError{Rule: RuleNotReadOnly, Subject: clipQuery(stmt),
			Reason: "the query needs " + *what + ", which a read-only query may not use"}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if qctx.Err() != nil {
		return ErrTimeout
	}
	msg := err.Error()
	if !utf8.ValidString(msg) {
		msg = strings.ToValidUTF8(msg, "?")
	}
	if len(msg) > 500 {
		msg = msg[:500]
	}
	if strings.Contains(msg, "unable to open") || strings.Contains(msg, "SQLITE_CANTOPEN") {
		return &SQLiteError{Msg: "the database file cannot be opened read-only"}
	}
	return &SQLiteError{Msg: msg}
}
