package sandbox

import (
	"github.com/golem-box/golem-box/mountspec"
)

// Operations a Change can be.
const (
	OpWrite  = "write"
	OpAppend = "append"
	OpEdit   = "edit"
	OpDelete = "delete"
)

// MaxChangeBytes bounds the old and new contents a Change carries: past it
// the guard is told the sizes only.
const MaxChangeBytes = 1 << 20

// Change is a change the file tools are about to make. It reaches the guard
// after every boundary check has passed (the path is inside a writable
// mount, the suffix and size are allowed), so that consent is never asked
// for what the sandbox forbids, and before anything is written or removed.
type Change struct {
	// Op is OpWrite, OpAppend, OpEdit or OpDelete.
	Op string `json:"op"`
	// Path is the virtual path changed, after following symbolic links.
	Path string `json:"path"`
	// Mount is the virtual path of the mount it is in ("/" for the root).
	Mount string `json:"mount"`
	// Approval is that mount's consent rules.
	Approval mountspec.Approval `json:"-"`
	// Exists says whether the path exists before the change.
	Exists bool `json:"exists"`
	// Dir and Recursive describe a deletion.
	Dir       bool `json:"dir,omitempty"`
	Recursive bool `json:"recursive,omitempty"`
	// OldBytes and NewBytes are the sizes before and after a write, append
	// or edit.
	OldBytes int64 `json:"old_bytes"`
	NewBytes int64 `json:"new_bytes"`

	// contents returns the content before and after; see Contents.
	contents func() (old, new []byte, err error)
}

// Contents returns the content before and after a write, append or edit,
// so that a guard can show a diff. Both are nil for a deletion, when either
// is larger than MaxChangeBytes, and when the file has several names (one of
// them may be outside the sandbox). It may read the file: a guard calls it
// only when it shows the change, not to decide.
func (c *Change) Contents() (old, new []byte, err error) {
	if c.contents == nil || c.OldBytes > MaxChangeBytes || c.NewBytes > MaxChangeBytes {
		return nil, nil, nil
	}
	return c.contents()
}

// Guard decides whether a change may be made. An error refuses it, and
// the file tools return that error unchanged with nothing written.
type Guard interface {
	Allow(Change) error
}

// SetGuard makes every later Write, Edit and Delete ask g first. Set it
// before the FS is shared; nil allows every change the sandbox allows.
func (f *FS) SetGuard(g Guard) { f.guard = g }

// allow asks the guard, if any, about a change at l.
func (f *FS) allow(c Change, l *loc) error {
	if f.guard == nil {
		return nil
	}
	c.Path, c.Mount, c.Approval = l.virtual, l.res.Target, l.res.Approval
	c.Exists = l.info != nil
	return f.guard.Allow(c)
}

// current reads the file at l for Contents, as the walk found it.
func (f *FS) current(op, unsafePath string, l *loc) ([]byte, error) {
	if l.info == nil || !l.info.Mode().IsRegular() || links(l.info) > 1 {
		return nil, nil
	}
	fh, fi, err := f.openVerified(op, unsafePath, l)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := readAtMost(fh, fi.Size(), MaxChangeBytes)
	if err != nil {
		return nil, f.fsError(op, unsafePath, err)
	}
	if len(data) > MaxChangeBytes {
		return nil, nil
	}
	return data, nil
}
