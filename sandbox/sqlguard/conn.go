package sqlguard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqlDriver is a private driver: no function, collation, module or hook
// that another package registers on the shared "sqlite" driver reaches
// the connections opened here.
var sqlDriver = &sqlite.Driver{}

// oneConnector opens connections of sqlDriver to one DSN.
type oneConnector struct{ dsn string }

func (c oneConnector) Connect(context.Context) (driver.Conn, error) { return sqlDriver.Open(c.dsn) }
func (c oneConnector) Driver() driver.Driver                        { return sqlDriver }

// Connection limits: no attached databases at all, no string or blob
// bigger than 16 MB (randomblob(1e9) fails instead of allocating 1 GB).
var sqlConnLimits = []struct{ id, val int }{
	{sqlite3.SQLITE_LIMIT_ATTACHED, 0},
	{sqlite3.SQLITE_LIMIT_LENGTH, 16 << 20},
	{sqlite3.SQLITE_LIMIT_SQL_LENGTH, MaxLen + 1000},
}

// authorizer is the allow-list SQLite consults while it compiles every
// statement on the connection: reads, read-only functions and pragmas,
// recursive CTEs; nothing else. It records the first refusal.
type authorizer struct {
	denied atomic.Pointer[string]
}

func (a *authorizer) fn(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	ok := false
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRecursive:
		ok = true
	case sqlite.AuthRead:
		ok = authorizedTable(arg1)
	case sqlite.AuthFunction:
		ok = authorizedFunction(arg2)
	case sqlite.AuthPragma:
		var buf [64]byte
		ro, arg := readPragma(string(lowerASCII(buf[:], arg1)))
		ok = ro && (arg || arg2 == "")
	}
	if ok {
		return sqlite.AuthorizerOK
	}
	what := authActionName(action)
	a.denied.CompareAndSwap(nil, &what)
	return sqlite.AuthorizerDeny
}

func authActionName(a sqlite.AuthorizerActionCode) string {
	switch a {
	case sqlite.AuthRead:
		return "reading this table"
	case sqlite.AuthFunction:
		return "this function"
	case sqlite.AuthPragma:
		return "this PRAGMA"
	case sqlite.AuthAttach, sqlite.AuthDetach:
		return "ATTACH/DETACH"
	case sqlite.AuthTransaction, sqlite.AuthSavepoint:
		return "transaction control"
	}
	return "a write or schema change"
}

// openReadOnly opens one connection for dsn (see sqliteDSN): read-only, query_only, defensive, untrusted schema, with the
// limits and the authorizer installed before any query runs. Closing the
// returned function closes everything.
func openReadOnly(ctx context.Context, dsn string, auth *authorizer) (*sql.Conn, *interrupter, func(), error) {
	db := sql.OpenDB(oneConnector{dsn: dsn})
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(0)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	closeAll := func() { conn.Close(); db.Close() }
	it := &interrupter{}
	err = conn.Raw(func(dc any) error {
		r, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("the SQLite driver has no authorizer")
		}
		if err := r.RegisterAuthorizer(auth.fn); err != nil {
			return err
		}
		it.db = connHandle(dc)
		if it.db == 0 {
			return errors.New("the SQLite driver hides its connection handle")
		}
		return nil
	})
	for _, l := range sqlConnLimits {
		if err == nil {
			_, err = sqlite.Limit(conn, l.id, l.val)
		}
	}
	if err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	return conn, it, closeAll, nil
}

// connHandle returns the sqlite3* handle of a modernc connection. The
// driver interrupts a query only while it computes the first row; later
// rows are stepped without a deadline, so the interrupter needs the
// handle itself.
func connHandle(dc any) uintptr {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return 0
	}
	f := v.Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr {
		return 0
	}
	return uintptr(f.Uint())
}

// interrupter calls sqlite3_interrupt on a connection until the query
// stops, once a context is done.
type interrupter struct {
	db     uintptr
	mu     sync.Mutex // guards closed against the connection's Close
	closed bool
	fired  atomic.Bool
}

func (it *interrupter) interrupt() {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.closed {
		return
	}
	tls := libc.NewTLS()
	sqlite3.Xsqlite3_interrupt(tls, it.db)
	tls.Close()
}

// watch interrupts the connection when ctx is done, again every 10 ms (an
// interrupt that arrives between two statements is lost). The returned
// stop must be called before the connection is closed.
func (it *interrupter) watch(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		it.fired.Store(true)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			it.interrupt()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		it.mu.Lock()
		it.closed = true
		it.mu.Unlock()
	}
}
