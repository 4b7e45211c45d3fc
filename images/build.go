package images

import (
	"archive/tar"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// libDirs are searched for shared libraries, as the dynamic linker does on
// Debian and most distributions.
var libDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// BuildFromHost makes a minimal image from host commands (names on PATH or
// paths) and the shared-library closure they need, read from their ELF
// headers: the commands land in /usr/bin, libraries and the dynamic linker
// at their host paths, and /bin is a link to usr/bin.
func (c *Cache) BuildFromHost(ctx context.Context, name string, commands ...string) (*Image, error) {
	if len(commands) == 0 {
		return nil, fmt.Errorf("give at least one command to put in the image")
	}
	files := map[string]string{} // path in image → host path
	for _, cmd := range commands {
		p, err := exec.LookPath(cmd)
		if err != nil {
			return nil, fmt.Errorf("command %q: %w", cmd, err)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, err
		}
		files["usr/bin/"+filepath.Base(cmd)] = real
		if err := closure(real, files, 0); err != nil {
			return nil, fmt.Errorf("command %q: %w", cmd, err)
		}
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(tarFiles(pw, files)) }()
	defer pr.Close()
	return c.add(pr, "", name, "from-host "+strings.Join(commands, " "))
}

// closure adds the interpreter and the DT_NEEDED libraries of an ELF file,
// recursively, under their host paths.
func closure(file string, files map[string]string, depth int) error {
	if depth > 32 {
		return fmt.Errorf("library dependencies nested too deeply at %s", file)
	}
	f, err := elf.Open(file)
	if err != nil {
		return nil // a script: its interpreter must be given as a command too
	}
	defer f.Close()
	var deps []string
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			b := make([]byte, prog.Filesz)
			if _, err := prog.ReadAt(b, 0); err == nil {
				deps = append(deps, strings.TrimRight(string(b), "\x00"))
			}
		}
	}
	libs, _ := f.ImportedLibraries()
	for _, lib := range libs {
		found := ""
		for _, d := range libDirs {
			if _, err := os.Stat(filepath.Join(d, lib)); err == nil {
				found = filepath.Join(d, lib)
				break
			}
		}
		if found == "" {
			return fmt.Errorf("library %s needed by %s not found in %s", lib, file, strings.Join(libDirs, ", "))
		}
		deps = append(deps, found)
	}
	for _, d := range deps {
		key := strings.TrimPrefix(filepath.Clean(d), "/")
		if _, ok := files[key]; ok {
			continue
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return err
		}
		files[key] = real
		if err := closure(real, files, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// tarFiles writes the image: directories, the files (regular, mode kept),
// and /bin → usr/bin, in sorted order with no times or owners.
func tarFiles(w io.Writer, files map[string]string) error {
	tw := tar.NewWriter(w)
	names := make([]string, 0, len(files))
	dirs := map[string]bool{"usr/": true, "usr/bin/": true}
	for n := range files {
		names = append(names, n)
		for d := filepath.Dir(n); d != "."; d = filepath.Dir(d) {
			dirs[d+"/"] = true
		}
	}
	for d := range dirs {
		names = append(names, d)
	}
	if !dirs["bin/"] {
		names = append(names, "bin")
	}
	slices.Sort(names)
	for _, n := range names {
		h := &tar.Header{Name: n, ModTime: deterministicTime, Format: tar.FormatPAX}
		switch {
		case strings.HasSuffix(n, "/"):
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case n == "bin" && files[n] == "":
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, "usr/bin", 0o777
		default:
			fi, err := os.Stat(files[n])
			if err != nil {
				return err
			}
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, int64(fi.Mode().Perm()), fi.Size()
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			f, err := os.Open(files[n])
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			if err != nil {
				return err
			}
		}
	}
	return tw.Close()
}
