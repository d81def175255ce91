package stage

// MaxKeep is the most of one file's content the merge reads for the
// checkpoint, and MaxKeepTotal of all files of one merge; a file past
// either is passed as TooBig (the change still lands, and a revert
// refuses the file).
const (
	MaxKeep      = 16 << 20
	MaxKeepTotal = 64 << 20
)

// Before is a file's state before a merge changes it: its content, or
// Exists false (the merge creates it).
type Before struct {
	Path   string
	Old    []byte
	Exists bool
	TooBig bool
}

// After is a file's state after the merge: the hex SHA-256 of its
// content, or Exists false.
type After struct {
	Path, Hash string
	Exists     bool
}

// Checkpoint keeps what a merge changes, so that a revert can undo it
// (A16): KeepAll gets every regular file's state before anything changes
// (one durable write), ChangedAll their states after. agent/session's Run
// does both.
type Checkpoint interface {
	KeepAll(files []Before) []error
	ChangedAll(files []After)
}

// Failure is a change that could not land, and why.
type Failure struct {
	Change *Change
	Err    error
}

// Report is what a merge did.
type Report struct {
	Landed []*Change
	Failed []Failure
}
