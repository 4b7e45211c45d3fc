package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/golem-box/golem-box/mountspec"
)

// WriteOptions change how Write writes.
type WriteOptions struct {
	// Append adds to the end of the file instead of replacing it.
	Append bool `json:"append,omitempty"`
}

// WriteResult reports a write.
type WriteResult struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	// Created is true when the file did not exist before.
	Created bool `json:"created"`
}

// Write writes content to a file, creating missing parent directories.
// Without Append the file is replaced atomically: readers see the old or
// the new content, never a mix, and a failed write leaves the old file.
func (f *FS) Write(unsafePath string, content []byte, opt WriteOptions) (*WriteResult, error) {
	const op = "write"
	l, err := f.writableLoc(op, unsafePath)
	if err != nil {
		return nil, err
	}
	if lim := int64(l.res.Files.MaxFileBytes); lim > 0 {
		size := int64(len(content))
		if opt.Append && l.info != nil {
			size += l.info.Size()
		}
		if size > lim {
			return nil, f.tooLarge(op, unsafePath, size, lim)
		}
	}
	if l.info != nil && l.info.IsDir() {
		return nil, f.sb.PathError(op, unsafePath, syscall.EISDIR)
	}
	c := Change{Op: OpWrite, NewBytes: int64(len(content))}
	if l.info != nil {
		c.OldBytes = l.info.Size()
	}
	c.contents = func() ([]byte, []byte, error) {
		old, err := f.current(op, unsafePath, l)
		if err != nil || old == nil && c.OldBytes > 0 {
			return nil, nil, err
		}
		if opt.Append {
			return old, append(old[:len(old):len(old)], content...), nil
		}
		return old, content, nil
	}
	if opt.Append {
		c.Op, c.NewBytes = OpAppend, c.OldBytes+int64(len(content))
	}
	if err := f.allow(c, l); err != nil {
		return nil, err
	}
	if l.info == nil {
		if err := l.root.MkdirAll(path.Dir(l.res.Rel), 0o777); err != nil {
			return nil, f.fsError(op, unsafePath, err)
		}
	}
	res := &WriteResult{Path: l.virtual, Bytes: len(content), Created: l.info == nil}
	if opt.Append {
		return res, f.appendTo(op, unsafePath, l, content)
	}
	return res, f.replace(op, unsafePath, l, content)
}

// writableLoc walks to a path that is to be written: the file (after
// following links) must be in a read-write mount and have an allowed suffix.
func (f *FS) writableLoc(op, unsafePath string) (*loc, error) {
	l, err := f.walk(op, unsafePath, true)
	if err != nil {
		return nil, err
	}
	if l.synthetic() {
		return nil, f.sb.PathError(op, unsafePath, mountspec.ErrOutsideSandbox)
	}
	if l.res.ReadOnly {
		e := f.sb.PathError(op, unsafePath, mountspec.ErrReadOnly)
		if c, _ := mountspec.CleanVirtual(unsafePath); c != l.virtual {
			e.Detail = fmt.Sprintf("It leads through symbolic links to %s.", l.virtual)
		}
		return nil, e
	}
	if l.res.Rel == "." {
		return nil, f.sb.PathError(op, unsafePath, syscall.EISDIR)
	}
	for _, p := range []string{unsafePath, l.virtual} {
		if err := f.checkSuffix(op, unsafePath, p, l); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// replace writes a temporary file beside the target and renames it over it,
// keeping the permissions of the file it replaces.
func (f *FS) replace(op, unsafePath string, l *loc, content []byte) error {
	perm := fs.FileMode(0o666) // narrowed by the umask
	if l.info != nil {
		perm = l.info.Mode().Perm()
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(path.Dir(l.res.Rel), ".golem-box-"+hex.EncodeToString(rnd[:])+".tmp")
	fh, err := l.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return f.fsError(op, unsafePath, err)
	}
	_, err = fh.Write(content)
	if err == nil && l.info != nil {
		err = fh.Chmod(perm) // the umask must not narrow an existing file
	}
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = l.root.Rename(tmp, l.res.Rel)
	}
	if err != nil {
		l.root.Remove(tmp)
		return f.fsError(op, unsafePath, err)
	}
	return nil
}

// appendTo appends in place, after checking that the file opened is the one
// walked to and has a single name: writing through a second name would
// change a file that may lie outside the sandbox.
func (f *FS) appendTo(op, unsafePath string, l *loc, content []byte) error {
	fh, err := l.root.OpenFile(l.res.Rel, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o666)
	if err != nil {
		return f.fsError(op, unsafePath, err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return f.fsError(op, unsafePath, err)
	}
	if err := f.checkOpened(op, unsafePath, l, fi); err != nil {
		return err
	}
	if links(fi) > 1 { // even when reads of such files are allowed
		e := f.sb.PathError(op, unsafePath, mountspec.ErrHardLink)
		e.Detail = "Appending would change every name of the file. Write the whole file instead, which replaces this name only."
		return e
	}
	if _, err := fh.Write(content); err != nil {
		return f.fsError(op, unsafePath, err)
	}
	return nil
}

// EditResult reports an edit.
type EditResult struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
}

// ErrEditNoMatch and ErrEditAmbiguous are the two ways an edit can miss.
var (
	ErrEditNoMatch   = errors.New("the text to replace was not found")
	ErrEditAmbiguous = errors.New("the text to replace appears more than once")
)

// Edit replaces old with new in a file: exactly one occurrence, or every
// one when all is set. The file is rewritten atomically.
func (f *FS) Edit(unsafePath, old, new string, all bool) (*EditResult, error) {
	const op = "edit"
	if old == "" {
		e := f.sb.PathError(op, unsafePath, ErrEditNoMatch)
		e.Detail = "The text to replace is empty; give the exact text to change."
		return nil, e
	}
	// One walk: the place must be writable, and the file read is the one
	// walked to (openVerified compares them).
	l, err := f.writableLoc(op, unsafePath)
	if err != nil {
		return nil, err
	}
	fh, fi, err := f.openVerified(op, unsafePath, l)
	if err != nil {
		return nil, err
	}
	data, err := f.readOpened(op, unsafePath, l, fh, fi)
	fh.Close()
	if err != nil {
		return nil, err
	}
	orig := data
	n := bytes.Count(data, []byte(old))
	switch {
	case n == 0:
		e := f.sb.PathError(op, unsafePath, ErrEditNoMatch)
		e.Detail = "Read the file again and copy the text exactly, including whitespace."
		return nil, e
	case n > 1 && !all:
		e := f.sb.PathError(op, unsafePath, ErrEditAmbiguous)
		e.Detail = fmt.Sprintf("It appears %d times. Include more of the surrounding text to pick one, or replace all of them.", n)
		return nil, e
	case !all:
		data = bytes.Replace(data, []byte(old), []byte(new), 1)
	default:
		data = bytes.ReplaceAll(data, []byte(old), []byte(new))
	}
	if lim := int64(l.res.Files.MaxFileBytes); lim > 0 && int64(len(data)) > lim {
		return nil, f.tooLarge(op, unsafePath, int64(len(data)), lim)
	}
	c := Change{Op: OpEdit, OldBytes: int64(len(orig)), NewBytes: int64(len(data)),
		contents: func() ([]byte, []byte, error) { return orig, data, nil }}
	if err := f.allow(c, l); err != nil {
		return nil, err
	}
	if err := f.replace(op, unsafePath, l, data); err != nil {
		return nil, err
	}
	return &EditResult{Path: l.virtual, Replacements: n}, nil
}

// Delete removes a file, an empty directory, or with recursive a whole
// tree. A symbolic link is removed itself, not what it points to. Mount
// points and directories that contain one cannot be deleted.
func (f *FS) Delete(unsafePath string, recursive bool) error {
	const op = "delete"
	l, err := f.walk(op, unsafePath, false)
	if err != nil {
		return err
	}
	if l.synthetic() || l.res.Rel == "." {
		e := f.sb.PathError(op, unsafePath, errors.New("it is a mount point"))
		e.Detail = "Delete what is inside it instead."
		return e
	}
	if l.res.ReadOnly {
		return f.sb.PathError(op, unsafePath, mountspec.ErrReadOnly)
	}
	if l.info == nil {
		return f.sb.PathError(op, unsafePath, fs.ErrNotExist)
	}
	if l.info.IsDir() {
		for _, t := range f.sb.ReadablePaths() {
			if len(t) > len(l.virtual) && t[:len(l.virtual)] == l.virtual && t[len(l.virtual)] == '/' {
				return f.sb.PathError(op, unsafePath, fmt.Errorf("it contains the mount point %s", t))
			}
		}
	}
	if err := f.allow(Change{Op: OpDelete, Dir: l.info.IsDir(), Recursive: recursive}, l); err != nil {
		return err
	}
	if recursive {
		err = l.root.RemoveAll(l.res.Rel)
	} else {
		err = l.root.Remove(l.res.Rel)
	}
	if err != nil {
		return f.fsError(op, unsafePath, err)
	}
	return nil
}
