package mountspec

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Resolution is where a virtual path lives on the host.
type Resolution struct {
	// Virtual is the normalised virtual path.
	Virtual string `json:"path"`
	// Target is the virtual path of the mount that serves it ("/" for the root).
	Target string `json:"mount"`
	// Source is the host directory of that mount.
	Source string `json:"source"`
	// Rel is the slash-separated path inside the mount, "." for the mount itself.
	Rel string `json:"rel"`
	// Host is Source joined with Rel.
	Host string `json:"host"`
	// ReadOnly reports whether the mount forbids writes.
	ReadOnly bool `json:"readonly"`
	// Name is the mount's name, if it has one.
	Name string `json:"name,omitempty"`
	// Approval is the consent changes here need, with defaults filled in.
	Approval Approval `json:"approval"`
	// Files are the file rules here: sandbox.files with the mount's own
	// suffixes and max_file_bytes over them.
	Files FileRules `json:"files"`
}

// defaultApproval is what an unset approval mode means.
var defaultApproval = Approval{Write: ApprovalAsk, Delete: ApprovalAsk}

// RootApproval is the consent changes under the root need.
func (s *Sandbox) RootApproval() Approval { return s.Approval.Over(defaultApproval) }

// MountApproval is the consent changes in m need.
func (s *Sandbox) MountApproval(m *Mount) Approval {
	return m.Approval.Over(s.Approval).Over(defaultApproval)
}

// MountFiles is the file rules for the files of m.
func (s *Sandbox) MountFiles(m *Mount) FileRules {
	f := s.Files
	if len(m.Suffixes) > 0 {
		f.Suffixes = m.Suffixes
	}
	if m.MaxFileBytes > 0 {
		f.MaxFileBytes = m.MaxFileBytes
	}
	return f
}

// CleanVirtual normalises an untrusted virtual path. Relative paths are taken
// from "/". It refuses empty paths, NUL bytes, paths over MaxPathBytes,
// components over MaxComponentBytes and any ".." that climbs above "/".
func CleanVirtual(unsafePath string) (string, error) {
	p := unsafePath
	if p == "" {
		return "", fmt.Errorf("%w: empty path", ErrInvalidPath)
	}
	if len(p) > MaxPathBytes {
		return "", fmt.Errorf("%w: path is %d bytes long, the limit is %d", ErrInvalidPath, len(p), MaxPathBytes)
	}
	// One pass: NUL bytes, component lengths, and whether ".." needs the slow path.
	dotdot, comp := false, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case 0:
			return "", fmt.Errorf("%w: path contains a NUL byte", ErrInvalidPath)
		case '/':
			comp = 0
			continue
		case '.':
			if i+1 < len(p) && p[i+1] == '.' {
				dotdot = true
			}
		}
		comp++
		if comp > MaxComponentBytes {
			return "", fmt.Errorf("%w: a path component is longer than %d bytes", ErrInvalidPath, MaxComponentBytes)
		}
	}
	if p[0] != '/' {
		p = "/" + p
	}
	if dotdot {
		depth := 0
		for _, c := range strings.Split(p, "/") {
			switch c {
			case "", ".":
			case "..":
				if depth == 0 {
					return "", ErrOutsideSandbox
				}
				depth--
			default:
				depth++
			}
		}
	}
	return path.Clean(p), nil
}

// within reports whether virtual path p is target or below it.
func within(p, target string) bool {
	if target == "/" {
		return true
	}
	return strings.HasPrefix(p, target) && (len(p) == len(target) || p[len(target)] == '/')
}

// Resolve maps an untrusted virtual path to the host: it normalises the path,
// picks the longest matching mount (the root is the mount at "/") and joins
// the remainder to that mount's source. It never touches the disk; package
// sandbox follows symbolic links on top of it.
func (s *Sandbox) Resolve(unsafePath string) (Resolution, error) {
	v, err := CleanVirtual(unsafePath)
	if err != nil {
		return Resolution{}, s.PathError("resolve", unsafePath, err)
	}
	best := -1
	for i := range s.Mounts {
		t := s.Mounts[i].Target
		if within(v, t) && (best < 0 || len(t) > len(s.Mounts[best].Target)) {
			best = i
		}
	}
	var r Resolution
	switch {
	case best >= 0:
		m := &s.Mounts[best]
		r = Resolution{Virtual: v, Target: m.Target, Source: m.Source, ReadOnly: m.ReadOnly, Name: m.Name,
			Approval: s.MountApproval(m), Files: s.MountFiles(m)}
	case s.Root != "":
		r = Resolution{Virtual: v, Target: "/", Source: s.Root, ReadOnly: s.ReadOnly, Approval: s.RootApproval(), Files: s.Files}
	default:
		return Resolution{}, s.PathError("resolve", unsafePath, ErrOutsideSandbox)
	}
	if len(v) == len(r.Target) {
		r.Rel, r.Host = ".", r.Source
		return r, nil
	}
	rest := v[len(r.Target):]
	if r.Target == "/" {
		rest = v
	}
	r.Rel = rest[1:]
	if r.Source == "/" {
		r.Host = rest
	} else {
		r.Host = r.Source + rest
	}
	return r, nil
}

// ResolveWritable is Resolve for a write: a path on a read-only mount is an
// ErrReadOnly error that lists the writable paths.
func (s *Sandbox) ResolveWritable(op, unsafePath string) (Resolution, error) {
	r, err := s.Resolve(unsafePath)
	if err != nil {
		if pe, ok := err.(*PathError); ok {
			pe.Op = op
		}
		return r, err
	}
	if r.ReadOnly {
		return r, s.PathError(op, unsafePath, ErrReadOnly)
	}
	return r, nil
}

// mountAt returns the index of the mount at target, or -1.
func (s *Sandbox) mountAt(target string) int {
	for i := range s.Mounts {
		if s.Mounts[i].Target == target {
			return i
		}
	}
	return -1
}

// MountNamed returns the mount called name, or nil.
func (s *Sandbox) MountNamed(name string) *Mount {
	for i := range s.Mounts {
		if s.Mounts[i].Name == name {
			return &s.Mounts[i]
		}
	}
	return nil
}

// CanRead reports whether the path is inside the sandbox.
func (s *Sandbox) CanRead(unsafePath string) bool {
	_, err := s.Resolve(unsafePath)
	return err == nil
}

// CanWrite reports whether the path is inside a read-write mount.
func (s *Sandbox) CanWrite(unsafePath string) bool {
	r, err := s.Resolve(unsafePath)
	return err == nil && !r.ReadOnly
}

// IsMountAncestor reports whether virtual path v is a proper ancestor of some
// mount target, so that it exists as a directory even when no mount covers it
// (as /data does for a mount at /data/in in a sandbox without a root).
func (s *Sandbox) IsMountAncestor(v string) bool {
	for i := range s.Mounts {
		t := s.Mounts[i].Target
		if t != v && within(t, v) {
			return true
		}
	}
	return false
}

// ReadablePaths lists the virtual paths the sandbox exposes, sorted.
func (s *Sandbox) ReadablePaths() []string {
	var out []string
	if s.Root != "" {
		out = append(out, "/")
	}
	for _, m := range s.Mounts {
		out = append(out, m.Target)
	}
	slices.Sort(out)
	return out
}

// WritablePaths lists the virtual paths of read-write mounts, sorted.
func (s *Sandbox) WritablePaths() []string {
	var out []string
	if s.Root != "" && !s.ReadOnly {
		out = append(out, "/")
	}
	for _, m := range s.Mounts {
		if !m.ReadOnly {
			out = append(out, m.Target)
		}
	}
	slices.Sort(out)
	return out
}

// PathError builds the guiding error for op on unsafePath: the readable
// paths for ErrOutsideSandbox, the writable ones for ErrReadOnly, the
// suffixes for ErrSuffixNotAllowed.
func (s *Sandbox) PathError(op, unsafePath string, err error) *PathError {
	e := &PathError{Op: op, Path: unsafePath, Err: err}
	switch err {
	case ErrOutsideSandbox:
		e.Readable = s.ReadablePaths()
	case ErrReadOnly:
		e.Writable = s.WritablePaths()
	case ErrSuffixNotAllowed:
		e.Suffixes = s.Files.Suffixes
		if r, err := s.Resolve(unsafePath); err == nil {
			e.Suffixes = r.Files.Suffixes
		}
	}
	return e
}

// Restriction is what a parent asks for when it hands work to a sub-worker
// (seed 000): a subtree and, optionally, read-only access.
type Restriction struct {
	// Restrict is the virtual subtree the child keeps; empty means "/".
	Restrict string `json:"restrict,omitempty" yaml:"restrict,omitempty"`
	// ReadOnly makes everything read-only when true. False asks to keep
	// write access, which is an error where the parent is read-only. Unset
	// inherits each mount's mode.
	ReadOnly *bool `json:"readonly,omitempty" yaml:"readonly,omitempty"`
}

// Restrict returns a narrower sandbox for a sub-worker. Paths stay the same
// (the child sees /src/app.ts where the parent does); mounts outside the
// subtree disappear; read-only is inherited per mount and can be added but
// never removed. The result has no root unless the subtree is "/".
func (s *Sandbox) Restrict(r Restriction) (Sandbox, error) {
	sub := "/"
	if r.Restrict != "" {
		v, err := CleanVirtual(r.Restrict)
		if err != nil {
			return Sandbox{}, s.PathError("restrict to", r.Restrict, err)
		}
		sub = v
	}
	child := *s
	child.Zones = nil
	child.Mounts = nil
	if sub == "/" {
		child.Mounts = slices.Clone(s.Mounts)
	} else {
		child.Root, child.ReadOnly = "", false
		if res, err := s.Resolve(sub); err == nil {
			// The subtree keeps the rules of the mount it comes from: the
			// root's are the sandbox's, which the child keeps.
			m := Mount{ReadOnly: res.ReadOnly}
			if i := s.mountAt(res.Target); i >= 0 {
				m = s.Mounts[i]
			}
			m.Source, m.Target = res.Host, sub
			child.Mounts = append(child.Mounts, m)
		}
		for _, m := range s.Mounts {
			if m.Target != sub && within(m.Target, sub) {
				child.Mounts = append(child.Mounts, m)
			}
		}
		if len(child.Mounts) == 0 {
			return Sandbox{}, s.PathError("restrict to", r.Restrict, ErrOutsideSandbox)
		}
	}
	if r.ReadOnly == nil {
		return child, nil
	}
	if *r.ReadOnly {
		child.ReadOnly = child.Root != ""
		for i := range child.Mounts {
			child.Mounts[i].ReadOnly = true
		}
		return child, nil
	}
	// readonly: false asks to keep writing everywhere in the subtree.
	if child.Root != "" && child.ReadOnly {
		return Sandbox{}, fmt.Errorf("%w: readonly: false asked for /, which the parent has read-only", ErrUpgrade)
	}
	for _, m := range child.Mounts {
		if m.ReadOnly {
			return Sandbox{}, fmt.Errorf("%w: readonly: false asked for %s, which the parent has read-only", ErrUpgrade, m.Target)
		}
	}
	return child, nil
}
