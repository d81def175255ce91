// Package sqlguard is the SQL policy of sql_query (B3): [Check] and
// [Analyze] decide statically that a query is exactly one read-only
// SQLite statement, and [Query] runs it on an existing database file
// through a read-only, query_only, defensive connection whose authorizer
// allows only reads, within row, size and time limits.
//
// It owns the SQLite driver (modernc.org/sqlite): it is the only agentls
// package that may import it. It must not create, attach or write any
// database, decide whether a database path is inside the workspace (the
// caller resolves it with [sandbox.ResolvePath] first), or import agentls
// packages other than the sandbox root.
package sqlguard
