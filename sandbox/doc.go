// Package sandbox holds the policy and enforcement primitives that sit
// underneath every tool: path containment (built on [os.Root]), and later
// shell, SQL and HTTP policies and the process runner.
//
// It knows nothing about tools, models or editors and imports none of
// agentls's other packages. Its checks return a [*PolicyError], which the
// tools package turns into a structured error for the model.
package sandbox
