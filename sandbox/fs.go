package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/golem-box/golem-box/mountspec"
)

// maxSymlinkHops bounds the symbolic links followed for one path, as Linux
// does (MAXSYMLINKS).
const maxSymlinkHops = 40

// FS performs file operations inside a sandbox. It holds one os.Root per
// mount; Close releases them. An FS is safe for concurrent use.
type FS struct {
	sb    mountspec.Sandbox
	guard Guard               // asked before every change; nil allows all
	roots map[string]*os.Root // by mount target; "/" is the root
	canon map[string]string   // mount target → source with links resolved
}

// Open opens the mounts of a validated sandbox for I/O.
func Open(sb *mountspec.Sandbox) (*FS, error) {
	f := &FS{sb: *sb, roots: make(map[string]*os.Root, len(sb.Mounts)+1), canon: map[string]string{}}
	open := func(target, source string) error {
		r, err := os.OpenRoot(source)
		if err != nil {
			f.Close()
			return fmt.Errorf("open mount %s (%s): %w", target, source, err)
		}
		f.addRoot(target, r)
		return nil
	}
	if sb.Root != "" {
		if err := open("/", sb.Root); err != nil {
			return nil, err
		}
	}
	for _, m := range sb.Mounts {
		if err := open(m.Target, m.Source); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// addRoot records an open mount and, where the platform tells, the path the
// kernel holds for its directory, which the fast read path compares against.
func (f *FS) addRoot(target string, r *os.Root) {
	f.roots[target] = r
	if d, err := r.Open("."); err == nil {
		if c, ok := realPath(d); ok {
			f.canon[target] = c
		}
		d.Close()
	}
}

// Close releases the mounts.
func (f *FS) Close() error {
	var errs []error
	for _, r := range f.roots {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// Sandbox returns the description the FS enforces.
func (f *FS) Sandbox() *mountspec.Sandbox { return &f.sb }

// Restrict returns an FS for a sub-worker (see mountspec.Sandbox.Restrict).
// The subtree is walked first: it must not pass through a symbolic link, and
// its root is opened through the parent's os.Root so that it cannot be
// swapped for a way out.
func (f *FS) Restrict(r mountspec.Restriction) (*FS, error) {
	child, err := f.sb.Restrict(r)
	if err != nil {
		return nil, err
	}
	c := &FS{sb: child, roots: map[string]*os.Root{}, canon: map[string]string{}}
	open := func(target, unsafePath string) error {
		l, err := f.walk("restrict to", unsafePath, true)
		if err != nil {
			return err
		}
		if l.virtual != mustClean(unsafePath) {
			return f.sb.PathError("restrict to", unsafePath, fmt.Errorf("it is a symbolic link to %s; restrict to that path instead", l.virtual))
		}
		if l.root == nil {
			return f.sb.PathError("restrict to", unsafePath, errors.New("it is not a directory of any mount"))
		}
		rr, err := l.root.OpenRoot(l.res.Rel)
		if err != nil {
			return f.fsError("restrict to", unsafePath, err)
		}
		c.addRoot(target, rr)
		return nil
	}
	if child.Root != "" {
		err = open("/", "/")
	}
	for _, m := range child.Mounts {
		if err == nil {
			err = open(m.Target, m.Target)
		}
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func mustClean(p string) string {
	v, _ := mountspec.CleanVirtual(p)
	return v
}

// loc is where a walk ended.
type loc struct {
	virtual string               // virtual path after following links
	res     mountspec.Resolution // its mount and host path
	root    *os.Root             // the mount's root; nil for a synthetic directory
	info    fs.FileInfo          // Lstat of the final component; nil if it does not exist
}

// synthetic reports a directory that exists only as the parent of mounts,
// such as /data for a mount at /data/in in a sandbox without a root.
func (l *loc) synthetic() bool { return l.root == nil }

// walk resolves unsafePath component by component, following symbolic links
// inside the sandbox (the final one only if followFinal). A missing
// component ends the walk without error: l.info is then nil.
func (f *FS) walk(op, unsafePath string, followFinal bool) (*loc, error) {
	v, err := mountspec.CleanVirtual(unsafePath)
	if err != nil {
		return nil, f.sb.PathError(op, unsafePath, err)
	}
	for hops := 0; ; {
		res, err := f.sb.Resolve(v)
		if err != nil {
			if f.sb.IsMountAncestor(v) {
				return &loc{virtual: v, res: mountspec.Resolution{Virtual: v, Target: v, Rel: "."}}, nil
			}
			return nil, f.withLink(f.sb.PathError(op, unsafePath, mountspec.ErrOutsideSandbox), v, unsafePath)
		}
		l := &loc{virtual: v, res: res, root: f.roots[res.Target]}
		if l.root == nil {
			return nil, fmt.Errorf("internal error: mount %s is not open", res.Target)
		}
		if res.Rel == "." {
			fi, err := l.root.Stat(".")
			if err != nil {
				return nil, f.fsError(op, unsafePath, err)
			}
			l.info = fi
			return l, nil
		}
		next := ""
		rel := res.Rel
		for i := 0; i <= len(rel); i++ {
			if i < len(rel) && rel[i] != '/' {
				continue
			}
			prefix, last := rel[:i], i == len(rel)
			fi, err := l.root.Lstat(prefix)
			if errors.Is(err, fs.ErrNotExist) {
				return l, nil // the rest does not exist yet
			}
			if err != nil {
				return nil, f.fsError(op, unsafePath, err)
			}
			if fi.Mode()&fs.ModeSymlink == 0 || (last && !followFinal) {
				if last {
					l.info = fi
				} else if !fi.IsDir() {
					return nil, f.sb.PathError(op, unsafePath, syscall.ENOTDIR)
				}
				continue
			}
			if hops++; hops > maxSymlinkHops {
				return nil, f.sb.PathError(op, unsafePath, mountspec.ErrSymlinkLoop)
			}
			target, err := l.root.Readlink(prefix)
			if err != nil {
				return nil, f.fsError(op, unsafePath, err)
			}
			linkVirtual := joinVirtual(res.Target, prefix)
			if !strings.HasPrefix(target, "/") {
				target = path.Dir(linkVirtual) + "/" + target
			}
			if !last {
				target += "/" + rel[i+1:]
			}
			next, err = mountspec.CleanVirtual(target)
			if err != nil {
				e := f.sb.PathError(op, unsafePath, mountspec.ErrOutsideSandbox)
				e.Detail = fmt.Sprintf("The symbolic link %s points outside the sandbox.", linkVirtual)
				return nil, e
			}
			break
		}
		if next == "" {
			return l, nil
		}
		v = next
	}
}

// withLink adds, when a walk left the sandbox through links, which path it reached.
func (f *FS) withLink(e *mountspec.PathError, reached, asked string) *mountspec.PathError {
	if c, err := mountspec.CleanVirtual(asked); err == nil && c != reached {
		e.Detail = fmt.Sprintf("It leads through symbolic links to %s.", reached)
	}
	return e
}

func joinVirtual(target, rel string) string {
	if rel == "." || rel == "" {
		return target
	}
	if target == "/" {
		return "/" + rel
	}
	return target + "/" + rel
}

// fsError turns an error of the os package, which names host paths, into a
// PathError that names the virtual path only.
func (f *FS) fsError(op, unsafePath string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = fs.ErrNotExist
	}
	return f.sb.PathError(op, unsafePath, err)
}

// checkSuffix applies the suffixes of the mount l is in to a virtual path.
func (f *FS) checkSuffix(op, unsafePath, virtual string, l *loc) error {
	sufs := l.res.Files.Suffixes
	if len(sufs) == 0 {
		return nil
	}
	for _, s := range sufs {
		if strings.HasSuffix(virtual, s) {
			return nil
		}
	}
	e := f.sb.PathError(op, unsafePath, mountspec.ErrSuffixNotAllowed)
	e.Suffixes = sufs
	return e
}

// tooLarge builds the size error.
func (f *FS) tooLarge(op, unsafePath string, size, limit int64) error {
	e := f.sb.PathError(op, unsafePath, mountspec.ErrTooLarge)
	e.Size, e.Limit = size, limit
	return e
}

// openRead opens a file for reading. The fast path opens the lexical
// resolution directly through os.Root and accepts it only if the kernel
// says the file opened is exactly at the mount's directory plus the
// remainder: then no symbolic link was crossed, and the walk would have
// reached the same file. Anything else takes the full walk.
func (f *FS) openRead(op, unsafePath string) (*os.File, fs.FileInfo, *loc, error) {
	if res, err := f.sb.Resolve(unsafePath); err == nil && res.Rel != "." {
		if canon, ok := f.canon[res.Target]; ok {
			root := f.roots[res.Target]
			if fh, err := root.OpenFile(res.Rel, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				if p, ok := realPath(fh); ok && len(p) == len(canon)+1+len(res.Rel) &&
					p[:len(canon)] == canon && p[len(canon)] == '/' && p[len(canon)+1:] == res.Rel {
					fi, err := fh.Stat()
					if err == nil {
						l := &loc{virtual: res.Virtual, res: res, root: root}
						if err := f.checkOpened(op, unsafePath, l, fi); err != nil {
							fh.Close()
							return nil, nil, nil, err
						}
						l.info = fi
						return fh, fi, l, nil
					}
				}
				fh.Close()
			}
		}
	}
	l, err := f.walk(op, unsafePath, true)
	if err != nil {
		return nil, nil, nil, err
	}
	fh, fi, err := f.openVerified(op, unsafePath, l)
	return fh, fi, l, err
}

// openVerified opens l for reading and checks that the file opened is the
// one the walk found, that it is a regular file, and its link count.
func (f *FS) openVerified(op, unsafePath string, l *loc) (*os.File, fs.FileInfo, error) {
	if l.synthetic() || (l.info != nil && l.info.IsDir()) {
		return nil, nil, f.sb.PathError(op, unsafePath, syscall.EISDIR)
	}
	if l.info == nil {
		return nil, nil, f.sb.PathError(op, unsafePath, fs.ErrNotExist)
	}
	// O_NONBLOCK: a FIFO planted under a mount must not hang the caller.
	fh, err := l.root.OpenFile(l.res.Rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, f.fsError(op, unsafePath, err)
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, f.fsError(op, unsafePath, err)
	}
	if err := f.checkOpened(op, unsafePath, l, fi); err != nil {
		fh.Close()
		return nil, nil, err
	}
	return fh, fi, nil
}

// checkOpened refuses a file that is not the one the walk found, is not a
// regular file, or has several names when that is not allowed.
func (f *FS) checkOpened(op, unsafePath string, l *loc, fi fs.FileInfo) error {
	if l.info != nil && !os.SameFile(l.info, fi) {
		e := f.sb.PathError(op, unsafePath, errors.New("the file changed while it was being opened"))
		e.Detail = "Something is replacing it concurrently; try again."
		return e
	}
	if fi.IsDir() {
		return f.sb.PathError(op, unsafePath, syscall.EISDIR)
	}
	if !fi.Mode().IsRegular() {
		return f.sb.PathError(op, unsafePath, fmt.Errorf("not a regular file (%s)", fi.Mode().Type()))
	}
	if !f.sb.Files.AllowHardLinks && links(fi) > 1 {
		e := f.sb.PathError(op, unsafePath, mountspec.ErrHardLink)
		e.Detail = "A file with several names may be a way into a file outside the sandbox. Copy it to a new file, or set files.allow_hard_links."
		return e
	}
	return nil
}

func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
