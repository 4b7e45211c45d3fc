package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/golem-box/golem-box/mountspec"
)

// Entry is one line of the approval log.
type Entry struct {
	Time time.Time `json:"time"`
	// Who asked: a worker name, or "golem-box" for the command line.
	Who string `json:"who"`
	// Op, Path and Mount are the change (virtual paths).
	Op    string `json:"op"`
	Path  string `json:"path"`
	Mount string `json:"mount"`
	// Setting is the mount's approval mode for the operation.
	Setting  mountspec.ApprovalMode `json:"setting"`
	Approved bool                   `json:"approved"`
	// Approver decided: ByPolicy for preApproved and blocked, ByNobody when
	// nobody could be asked, else the Approver's name.
	Approver string `json:"approver"`
	// Reason is what the approver said, or why it could not decide.
	Reason string `json:"reason,omitempty"`
}

// Log appends entries as JSON lines to a file, creating it (mode 0600) and
// its directory on first use. A nil *Log discards entries.
type Log struct {
	path string
	mu   sync.Mutex
}

// OpenLog returns the log at path; nothing is created until an entry is.
func OpenLog(path string) *Log { return &Log{path: path} }

// Path is the file the log appends to.
func (l *Log) Path() string { return l.path }

// Append writes one entry with a single write on a file opened O_APPEND, so
// lines of concurrent golem-box processes do not interleave. A symbolic
// link in the log's place is refused.
func (l *Log) Append(e Entry, now time.Time) error {
	if l == nil {
		return nil
	}
	e.Time = now.UTC()
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return fmt.Errorf("approval log %s: %w", l.path, err)
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("approval log %s: %w", l.path, err)
	}
	_, err = f.Write(line)
	return errors.Join(err, f.Close())
}

// LogPath is where decisions of cfg are logged: approval.log, or
// approvals.jsonl in the user's state directory ($XDG_STATE_HOME/golem-box,
// else ~/.local/state/golem-box). Like approval.log, the default must lie
// outside every writable mount.
func LogPath(cfg *mountspec.Config) (string, error) {
	if cfg.Approval.Log != "" {
		return cfg.Approval.Log, nil
	}
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no place for the approval log: %v (set approval.log in %s)", err, mountspec.FileName)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	p := filepath.Join(dir, "golem-box", "approvals.jsonl")
	if m := cfg.Sandbox.WritableHolder(p); m != "" {
		return "", &mountspec.ConfigError{Field: "approval.log",
			Msg: fmt.Sprintf("the default approval log %s is inside the writable mount %s, so a worker could rewrite the record of its own approvals", p, m),
			Fix: "set approval.log to a file outside every writable mount"}
	}
	return p, nil
}
