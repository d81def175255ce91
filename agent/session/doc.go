// Package session keeps agentls's conversations (A11, A16): every run
// belongs to a session, a session can be continued with its history
// (plan, then execute the plan), listed, shown, and a run's file changes
// can be reverted from the checkpoints kept next to it.
//
// # Where
//
// A [Store] holds the sessions of one workspace, in
// <state dir>/sessions/<hash of the workspace root>/: the state directory
// ($XDG_STATE_HOME/agentls or ~/.local/state/agentls) is never inside the
// workspace, the directories are 0700 and the files 0600. A store opened
// with an empty state directory keeps its sessions in memory (tests, and a
// machine without a writable state directory: the runs work, nothing
// persists, and the caller says so).
//
// # Format: an append-only log
//
// Each session is one file, <id>.jsonl: one JSON record per line, written
// with a single write and fsynced at every turn boundary. The alternative,
// rewriting a snapshot (temp file + rename) per turn, costs O(size of the
// conversation) per turn and a full fsync of it; the log costs O(the turn)
// and a torn tail is easy to tell: the last line is cut or fails its
// checksum. Each record ends in "crc":"xxxxxxxx", the CRC-32 (IEEE) of the
// bytes before that member, so a damaged line in the middle is found too,
// not only a line that no longer parses. Records:
//
//	session  the header: format version, id, workspace root, start time
//	run      a run begins: its number, mode, instruction (first line)
//	msg      one message appended to the conversation
//	reset    the conversation was rewritten (compaction, repairs): it
//	         replaces every message before it
//	end      a run ended: status, turns, first line of the summary
//	change   a run changed a file: path, hash before (with the old content
//	         kept as a checkpoint) and hash after
//	revert   a run restored the changes of an earlier run
//
// A file that cannot be read to the end is recovered, never fatal: the
// records before the first bad line are kept, the damaged file is kept
// aside as <id>.jsonl.corrupt-<time>, a fresh file with the readable
// prefix takes its place, and [Recovery] says what was recovered and what
// was dropped. A file whose very first record is bad cannot be told apart
// from garbage, so its session starts anew. Other sessions are never
// touched.
//
// A write that fails (disk full) is reported once through the store's
// warning function and the conversation goes on; the file is cut back to
// its last complete record and every record not written stays pending:
// it goes first in the next write, so a run, its messages and the files
// it changed reach the log when space returns, and [Session.Close] tries
// once more. A run whose run record is pending burns its number with an
// empty marker file, <id>.run-<n>.burned (an empty file needs no data
// block): runs of every process are numbered after it, so a run ID is
// never given twice, even when the process ends before space returns.
//
// # Listing
//
// Next to each log, <id>.index holds its [Info] and the size of the log
// it describes, written at each run's end and at [Session.Close]. A
// listing ([Store.List], [Store.Latest]) reads the indexes; a log whose
// index is missing or describes another size is read line by line in
// bounded memory (see scan.go) and its index written again.
//
// # Order
//
// Runs of one session take turns: [Session.Begin] waits, first come first
// served, until the session's previous run has ended, and, across
// processes, holds an advisory lock on the file for the run. Runs of
// different sessions do not wait for each other.
//
// # Lifetime
//
// [Store.New] and [Store.Session] hand out references; [Session.Release]
// gives one back, and the last one closes the session's log and drops it
// from memory (release.go): a server that runs for days holds only the
// sessions its commands are using, and a run that continues a session
// reads it again from its log. A store in memory keeps its sessions.
//
// # Checkpoints
//
// Before a run changes a file, [Run.Keep] stores its old content under
// <id>.files/<run>/; [Run.Changed] records the content the run left. A
// revert restores each file whose current content is still what the run
// left and refuses the others as stale. The bounds are [Limits].
//
// The package knows the agent's [agent.Message] and nothing of LSP,
// tools, or the editor.
package session
