package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
)

// The index of a session is SESSION.index next to its log: its [Info] and
// the size of the log it describes. `agentls sessions` reads the indexes,
// not the logs (issue 26: reading 1,000 logs in full took 0.39 s, and a
// 100 MB record 214 MiB). An index whose size is not the log's (a run of
// another process is under way, a crash, an older agentls) is not used:
// that log is read once and its index written again. It is a cache, not
// a record: written atomically without an fsync, and never trusted over
// the log.

// maxIndex bounds an index file: an Info is a few hundred bytes (its Task
// is one line of at most 200).
const maxIndex = 4 << 10

// indexVersion changes when what an index holds changes.
const indexVersion = 1

type index struct {
	Version int   `json:"v"`
	Size    int64 `json:"size"` // of the log it describes
	Info    Info  `json:"info"`
}

func (st *Store) indexPath(id string) string { return filepath.Join(st.dir, id+".index") }

// writeIndex records info as what the log of id says at size bytes.
func (st *Store) writeIndex(id string, size int64, info Info) {
	b, err := json.Marshal(index{Version: indexVersion, Size: size, Info: info})
	if err != nil {
		return
	}
	f, err := os.CreateTemp(st.dir, ".tmp-index-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), st.indexPath(id)) != nil {
		_ = os.Remove(f.Name())
	}
}

// readIndex returns the info of id's index when it describes the log as
// it is now (its size, fi); Updated is the log's modification time.
// buf is a scratch buffer of [maxIndex] bytes.
func (st *Store) readIndex(id string, fi os.FileInfo, buf []byte) (Info, bool) {
	// Three system calls, open, read and close, are what listing 1,000
	// sessions costs: os.Open would add the poller's (a regular file
	// never blocks) and os.ReadFile an fstat and a second read. An index
	// is written whole by a rename, so one read of a small file gets it.
	fd, err := syscall.Open(st.indexPath(id), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return Info{}, false
	}
	n, err := syscall.Read(fd, buf[:maxIndex])
	syscall.Close(fd)
	if err != nil || n <= 0 || n == maxIndex { // a full buffer is an index too large
		return Info{}, false
	}
	var ix index
	if json.Unmarshal(buf[:n], &ix) != nil || ix.Version != indexVersion || ix.Size != fi.Size() || ix.Info.ID != id {
		return Info{}, false
	}
	ix.Info.Updated = fi.ModTime().UTC()
	return ix.Info, true
}

// indexLocked writes s's index when its log holds all it knows; s.mu
// must be held.
func (s *Session) indexLocked() {
	if s.f == nil || len(s.pending) > 0 || s.readOnly || (s.indexed && s.indexedSize == s.size) {
		return
	}
	s.st.writeIndex(s.ID, s.size, s.infoLocked())
	s.indexed, s.indexedSize = true, s.size
}

// listInfo is the listing of a session not open in this process: from its
// index, or else from its log, whose index is then written.
// buf is a scratch buffer of [maxIndex] bytes.
func (st *Store) listInfo(id string, buf []byte) (Info, error) {
	fi, err := os.Stat(st.path(id))
	if err != nil {
		return Info{}, err
	}
	if info, ok := st.readIndex(id, fi, buf); ok {
		return info, nil
	}
	info, err := scan(st, id)
	if err == nil {
		st.writeIndex(id, fi.Size(), info)
	}
	return info, err
}
