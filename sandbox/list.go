package sandbox

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/golem-box/golem-box/mountspec"
)

// MaxListEntries bounds what List returns; MaxGlobDepth how deep ** goes.
const (
	MaxListEntries = 10_000
	MaxGlobDepth   = 64
)

// Entry types.
const (
	EntryFile    = "file"
	EntryDir     = "dir"
	EntrySymlink = "symlink"
	EntryOther   = "other"
)

// Info describes a file at a virtual path.
type Info struct {
	Path    string      `json:"path"`
	Type    string      `json:"type"`
	Size    int64       `json:"size"`
	Mode    fs.FileMode `json:"mode"`
	ModTime time.Time   `json:"mod_time,omitzero"`
	// Mount is the virtual path of the mount that holds it.
	Mount    string `json:"mount"`
	ReadOnly bool   `json:"readonly"`
}

// ListResult is a listing or the matches of a glob, in path order.
type ListResult struct {
	Entries []Info `json:"entries"`
	// Truncated says that more than MaxListEntries matched.
	Truncated bool `json:"truncated"`
}

func entryType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return EntryFile
	case m.IsDir():
		return EntryDir
	case m&fs.ModeSymlink != 0:
		return EntrySymlink
	}
	return EntryOther
}

// Stat describes the file at a path, following symbolic links.
func (f *FS) Stat(unsafePath string) (*Info, error) {
	const op = "stat"
	l, err := f.walk(op, unsafePath, true)
	if err != nil {
		return nil, err
	}
	if l.synthetic() {
		return &Info{Path: l.virtual, Type: EntryDir, Mode: fs.ModeDir | 0o555, Mount: l.virtual, ReadOnly: true}, nil
	}
	if l.info == nil {
		return nil, f.sb.PathError(op, unsafePath, fs.ErrNotExist)
	}
	return f.info(l.virtual, l.res, l.info), nil
}

func (f *FS) info(virtual string, res mountspec.Resolution, fi fs.FileInfo) *Info {
	return &Info{Path: virtual, Type: entryType(fi.Mode()), Size: fi.Size(), Mode: fi.Mode(),
		ModTime: fi.ModTime(), Mount: res.Target, ReadOnly: res.ReadOnly}
}

// Resolve is mountspec's Resolve with symbolic links followed as the file
// tools follow them: it says which host file an operation would reach.
func (f *FS) Resolve(unsafePath string) (mountspec.Resolution, error) {
	l, err := f.walk("resolve", unsafePath, true)
	if err != nil {
		return mountspec.Resolution{}, err
	}
	return l.res, nil
}

// List lists a directory, or, when the argument contains *, ? or [, the
// paths that match it as a glob ("**" matches any number of directories).
// Mounts appear where they are mounted, hiding what they shadow; symbolic
// links are listed, not followed.
func (f *FS) List(unsafePattern string) (*ListResult, error) {
	const op = "list"
	if !strings.ContainsAny(unsafePattern, "*?[") {
		l, err := f.walk(op, unsafePattern, true)
		if err != nil {
			return nil, err
		}
		if !l.synthetic() && l.info == nil {
			return nil, f.sb.PathError(op, unsafePattern, fs.ErrNotExist)
		}
		if !l.synthetic() && !l.info.IsDir() {
			return &ListResult{Entries: []Info{*f.info(l.virtual, l.res, l.info)}}, nil
		}
		res := &ListResult{}
		entries, err := f.readDir(l)
		if err != nil {
			return nil, f.fsError(op, unsafePattern, err)
		}
		for _, e := range entries {
			if len(res.Entries) == MaxListEntries {
				res.Truncated = true
				break
			}
			res.Entries = append(res.Entries, e)
		}
		return res, nil
	}
	pattern, err := mountspec.CleanVirtual(unsafePattern)
	if err != nil {
		return nil, f.sb.PathError(op, unsafePattern, err)
	}
	parts := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	for _, p := range parts {
		if _, err := path.Match(p, ""); err != nil {
			e := f.sb.PathError(op, unsafePattern, err)
			e.Detail = "Use * and ? for names, [abc] for sets, ** for any number of directories."
			return nil, e
		}
	}
	// Walk from the longest prefix without wildcards.
	base := 0
	for base < len(parts) && !strings.ContainsAny(parts[base], "*?[") {
		base++
	}
	start := "/" + strings.Join(parts[:base], "/")
	l, err := f.walk(op, start, true)
	if err != nil {
		return nil, err
	}
	res := &ListResult{}
	if l.synthetic() || (l.info != nil && l.info.IsDir()) {
		f.glob(l, parts[base:], 0, res, map[string]bool{})
	}
	slices.SortFunc(res.Entries, func(a, b Info) int { return strings.Compare(a.Path, b.Path) })
	return res, nil
}

// glob matches the remaining pattern parts below directory l. "**" matches
// zero directories (the rest is tried here) or one more (it is kept for
// each subdirectory). Symbolic links to directories are not descended.
func (f *FS) glob(l *loc, parts []string, depth int, res *ListResult, seen map[string]bool) {
	if len(parts) == 0 || res.Truncated || depth > MaxGlobDepth {
		return
	}
	p, rest := parts[0], parts[1:]
	if p == "**" && len(rest) > 0 {
		f.glob(l, rest, depth, res, seen)
	}
	entries, err := f.readDir(l)
	if err != nil {
		return // unreadable directories match nothing, as in a shell
	}
	for _, e := range entries {
		if p == "**" {
			if len(rest) == 0 {
				f.add(res, e, seen)
			}
			f.descend(e, parts, depth, res, seen)
			continue
		}
		if ok, _ := path.Match(p, path.Base(e.Path)); !ok {
			continue
		}
		if len(rest) == 0 {
			f.add(res, e, seen)
		} else {
			f.descend(e, rest, depth, res, seen)
		}
	}
}

func (f *FS) descend(e Info, parts []string, depth int, res *ListResult, seen map[string]bool) {
	if e.Type != EntryDir {
		return
	}
	if sub, err := f.walk("list", e.Path, false); err == nil {
		f.glob(sub, parts, depth+1, res, seen)
	}
}

func (f *FS) add(res *ListResult, e Info, seen map[string]bool) {
	if seen[e.Path] {
		return
	}
	if len(res.Entries) >= MaxListEntries {
		res.Truncated = true
		return
	}
	seen[e.Path] = true
	res.Entries = append(res.Entries, e)
}

// readDir lists a virtual directory: its entries on the host, with the
// mounts (and the directories leading to mounts) laid over them.
func (f *FS) readDir(l *loc) ([]Info, error) {
	byName := map[string]Info{}
	if !l.synthetic() {
		d, err := l.root.Open(l.res.Rel)
		if err != nil {
			return nil, err
		}
		des, err := d.ReadDir(MaxListEntries + 1)
		d.Close()
		if err != nil && len(des) == 0 {
			return nil, err
		}
		for _, de := range des {
			fi, err := de.Info()
			if err != nil {
				continue // removed meanwhile
			}
			v := joinVirtual(l.virtual, de.Name())
			byName[de.Name()] = Info{Path: v, Type: entryType(fi.Mode()), Size: fi.Size(), Mode: fi.Mode(),
				ModTime: fi.ModTime(), Mount: l.res.Target, ReadOnly: l.res.ReadOnly}
		}
	}
	prefix := strings.TrimSuffix(l.virtual, "/") + "/"
	for _, t := range f.sb.ReadablePaths() {
		if len(t) <= len(prefix) || !strings.HasPrefix(t, prefix) {
			continue
		}
		name, _, deeper := strings.Cut(t[len(prefix):], "/")
		v := prefix + name
		if deeper {
			if _, ok := byName[name]; ok {
				continue // a real directory on the way to a mount
			}
			byName[name] = Info{Path: v, Type: EntryDir, Mode: fs.ModeDir | 0o555, Mount: v, ReadOnly: true}
			continue
		}
		info := Info{Path: v, Type: EntryDir, Mode: fs.ModeDir | 0o755, Mount: v}
		if r, err := f.sb.Resolve(v); err == nil {
			info.ReadOnly = r.ReadOnly
			if fi, err := f.roots[v].Stat("."); err == nil {
				info.Mode, info.ModTime = fi.Mode(), fi.ModTime()
			}
		}
		byName[name] = info
	}
	out := make([]Info, 0, len(byName))
	for _, e := range byName {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
