package tools

import "time"

// Internals for the external tests (package tools_test): they need the
// built-in tools, which package tools itself cannot import.
var (
	CompileSchema  = compileSchema
	SchemaCompiles = &schemaCompiles
	UniqueTool     = uniqueTool
)

// SlowApprover answers approve after d, or when ctx ends.
func SlowApprover(d time.Duration) Approver { return slowApprover{after: d} }
