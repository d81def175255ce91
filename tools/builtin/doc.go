// Package builtin holds agentls' built-in tools (B1): read_file, list_dir,
// search, edit_file, write_file, report_finding, human_confirm,
// run_command, sql_query, http_fetch and calculator, each in a file of its
// own with its static check in <tool>_check.go and its description, sent
// to the model, in descriptions/<tool>.md.
//
// They are clients of the tool contract in package tools and use nothing
// a third-party tool could not: each is made by [tools.New] from a typed
// check and handler over its argument struct, whose schema the registry
// checks against that struct; what the gateway decided about a call
// (preapproved, control file, approved by the user, who can be asked)
// reaches it as [tools.Call] in [tools.Env.Call]. Effects go through the
// sandbox packages (paths on os.Root, the process runner, the SQL and
// network guards) and the editor's interfaces in [tools.Env].
//
// It must not be imported by package tools, which knows no tool by name.
package builtin
