package images

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Bounds on an image, so that a hostile archive cannot fill the disk or
// exhaust inodes unnoticed.
const (
	MaxImageBytes   = 16 << 30
	MaxImageEntries = 1_000_000
)

// ErrUnsafeEntry is an archive entry that extraction refuses.
var ErrUnsafeEntry = errors.New("unsafe archive entry")

// extract writes a tar stream into dst, which must be an empty directory,
// through an os.Root so that nothing lands outside it.
func extract(r io.Reader, dst string) error {
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read archive: %w", err)
		}
		if n >= MaxImageEntries {
			return fmt.Errorf("image has more than %d entries", MaxImageEntries)
		}
		name, ok := cleanName(h.Name)
		if !ok {
			return fmt.Errorf("%w: %q climbs out of the image", ErrUnsafeEntry, h.Name)
		}
		if name == "." || strings.HasPrefix(path.Base(name), ".wh.") {
			continue // the root itself; whiteouts of layered images are applied before us
		}
		mode := fs.FileMode(h.Mode).Perm() | fs.FileMode(h.Mode)&fs.ModeSticky
		if dir := path.Dir(name); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return entryErr(h.Name, err)
			}
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.Mkdir(name, mode|0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return entryErr(h.Name, err)
			}
		case tar.TypeReg:
			total += h.Size
			if h.Size < 0 || total > MaxImageBytes {
				return fmt.Errorf("image is larger than %d bytes", int64(MaxImageBytes))
			}
			_ = root.Remove(name) // a later layer's file replaces an earlier one
			f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
			if err != nil {
				return entryErr(h.Name, err)
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return entryErr(h.Name, err)
			}
		case tar.TypeSymlink:
			// The target is not followed here; inside a container it resolves
			// within the container's own root.
			_ = root.Remove(name)
			if err := root.Symlink(h.Linkname, name); err != nil {
				return entryErr(h.Name, err)
			}
		case tar.TypeLink:
			target, ok := cleanName(h.Linkname)
			if !ok {
				return fmt.Errorf("%w: hard link %q to %q outside the image", ErrUnsafeEntry, h.Name, h.Linkname)
			}
			_ = root.Remove(name)
			if err := root.Link(target, name); err != nil {
				return entryErr(h.Name, err)
			}
		default:
			// Devices, FIFOs and the like: a container gets its /dev from
			// the runtime, and nothing else needs them.
		}
	}
}

// cleanName makes an archive path relative and refuses ".." above the root.
func cleanName(p string) (string, bool) {
	p = strings.TrimLeft(p, "/")
	depth := 0
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return "", false
			}
		default:
			depth++
		}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", false
	}
	return path.Clean("./" + p), true
}

func entryErr(name string, err error) error {
	return fmt.Errorf("%w: %q: %v", ErrUnsafeEntry, name, err)
}
