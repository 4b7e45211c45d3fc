package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is a host tree: proj (the root, read-write), cache (read-only at
// /cache), out (read-write at /out) and, beside them, outside/secret.txt, a
// canary that no operation may ever reach.
type fixture struct {
	dir, secret string
	fs          *FS
}

const secret = "TOP SECRET host data"

func newFixture(t *testing.T, edit ...func(*mountspec.Sandbox)) *fixture {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"proj/src", "proj/etc", "cache/npm", "out", "outside"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	put := func(rel, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644))
	}
	put("outside/secret.txt", secret)
	put("proj/src/app.ts", "line 1\nline 2\nline 3\n")
	put("proj/etc/passwd", "sandbox passwd\n")
	put("cache/npm/pkg.json", "{}\n")
	sb := &mountspec.Sandbox{
		Root: filepath.Join(dir, "proj"),
		Mounts: []mountspec.Mount{
			{Source: filepath.Join(dir, "cache"), Target: "/cache", ReadOnly: true},
			{Source: filepath.Join(dir, "out"), Target: "/out"},
		},
	}
	for _, e := range edit {
		e(sb)
	}
	require.NoError(t, sb.Validate())
	f, err := Open(sb)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return &fixture{dir: dir, secret: filepath.Join(dir, "outside/secret.txt"), fs: f}
}

func (x *fixture) host(rel string) string { return filepath.Join(x.dir, rel) }

// assertCanary checks that the secret is intact and no error leaked it.
func (x *fixture) assertCanary(t *testing.T, errs ...error) {
	t.Helper()
	b, err := os.ReadFile(x.secret)
	require.NoError(t, err)
	assert.Equal(t, secret, string(b), "the file outside the sandbox must not change")
	for _, e := range errs {
		if e != nil {
			assert.NotContains(t, e.Error(), secret)
		}
	}
}

func TestReadText(t *testing.T) {
	x := newFixture(t)
	r, err := x.fs.Read("/src/app.ts", ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, TypeText, r.Type)
	assert.Equal(t, "line 1\nline 2\nline 3\n", r.Text)
	assert.Equal(t, 3, r.TotalLines)
	assert.Equal(t, 3, r.OutputLines)
	assert.False(t, r.Truncated)

	r, err = x.fs.Read("src/app.ts", ReadOptions{Offset: 2, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, "line 2\n", r.Text)
	assert.Equal(t, 2, r.StartLine)
	assert.Equal(t, 3, r.TotalLines)
	assert.True(t, r.Truncated)
	assert.Equal(t, "lines", r.TruncatedBy)

	r, err = x.fs.Read("/src/app.ts", ReadOptions{MaxBytes: 10})
	require.NoError(t, err)
	assert.Equal(t, "line 1\nlin", r.Text)
	assert.Equal(t, "bytes", r.TruncatedBy)
	assert.Equal(t, 3, r.TotalLines, "total lines are counted past the cap")

	// A line longer than the read buffer is still one line.
	long := strings.Repeat("x", 200_000) + "\nend"
	require.NoError(t, os.WriteFile(x.host("proj/long.txt"), []byte(long), 0o644))
	r, err = x.fs.Read("/long.txt", ReadOptions{MaxBytes: 300_000})
	require.NoError(t, err)
	assert.Equal(t, 2, r.TotalLines)
	assert.Equal(t, long, r.Text)
}

func TestReadImageAndBinary(t *testing.T) {
	x := newFixture(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	require.NoError(t, os.WriteFile(x.host("proj/pic.dat"), png, 0o644))
	r, err := x.fs.Read("/pic.dat", ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, TypeImage, r.Type, "detected by content, not by name")
	assert.Equal(t, "image/png", r.MIMEType)
	assert.Equal(t, png, r.Data)

	require.NoError(t, os.WriteFile(x.host("proj/a.out"), []byte("\x7fELF\x02\x01\x01\x00\x00"), 0o644))
	r, err = x.fs.Read("/a.out", ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, TypeBinary, r.Type)
	assert.Empty(t, r.Text)
}

func TestEscapesAreRefused(t *testing.T) {
	x := newFixture(t)
	link := func(target, name string) {
		require.NoError(t, os.Symlink(target, x.host(name)))
	}
	link("../../outside/secret.txt", "proj/src/rel-out")     // relative, out of the root
	link(x.secret, "proj/abs-host")                          // absolute host path
	link("../outside", "proj/dir-out")                       // a directory out
	link("/cache/../../outside/secret.txt", "out/via-cache") // through a mount, then up
	link("loop-b", "proj/loop-a")
	link("../cache/npm", "proj/npm-up") // climbs above "/": refused, not clamped
	link("loop-a", "proj/loop-b")
	for _, tc := range []struct {
		path string
		want error
	}{
		{"/../outside/secret.txt", mountspec.ErrOutsideSandbox},
		{"/src/../../outside/secret.txt", mountspec.ErrOutsideSandbox},
		{"/cache/../../outside/secret.txt", mountspec.ErrOutsideSandbox},
		{"/src/rel-out", mountspec.ErrOutsideSandbox},
		{"/dir-out/secret.txt", mountspec.ErrOutsideSandbox},
		{"/out/via-cache", mountspec.ErrOutsideSandbox},
		{"/loop-a", mountspec.ErrSymlinkLoop},
		{"/npm-up/pkg.json", mountspec.ErrOutsideSandbox},
		{"/src/app.ts\x00.md", mountspec.ErrInvalidPath},
		{"/" + strings.Repeat("a/", 2100), mountspec.ErrInvalidPath},
		{"/" + strings.Repeat("b", 300), mountspec.ErrInvalidPath},
	} {
		t.Run(tc.path[:min(len(tc.path), 40)], func(t *testing.T) {
			_, err := x.fs.Read(tc.path, ReadOptions{})
			require.ErrorIs(t, err, tc.want)
			_, err2 := x.fs.Write(tc.path, []byte("pwned"), WriteOptions{})
			require.Error(t, err2)
			_, err3 := x.fs.Write(tc.path, []byte("pwned"), WriteOptions{Append: true})
			require.Error(t, err3)
			x.assertCanary(t, err, err2, err3)
		})
	}
	// An absolute link to a host path means that path inside the sandbox's
	// own "/": it does not exist there, and writing creates it there.
	_, err := x.fs.Read("/abs-host", ReadOptions{})
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = x.fs.Write("/abs-host", []byte("inside"), WriteOptions{})
	require.NoError(t, err)
	b, err := os.ReadFile(x.host("proj" + x.secret))
	require.NoError(t, err)
	assert.Equal(t, "inside", string(b))
	x.assertCanary(t)

	// The outside error guides the model.
	_, err = x.fs.Read("/src/rel-out", ReadOptions{})
	assert.Contains(t, err.Error(), "Readable paths: /, /cache, /out")
	assert.Contains(t, err.Error(), "The symbolic link /src/rel-out points outside the sandbox.")
	assert.NotContains(t, err.Error(), x.dir, "host paths are not shown to the model")
}

func TestAbsoluteSymlinksStayInsideTheSandbox(t *testing.T) {
	x := newFixture(t)
	require.NoError(t, os.Symlink("/etc/passwd", x.host("proj/pw")))
	require.NoError(t, os.Symlink("/cache/npm/pkg.json", x.host("proj/src/pkg")))
	require.NoError(t, os.Symlink("cache/npm", x.host("proj/npm")))
	b, err := x.fs.ReadFile("/pw")
	require.NoError(t, err)
	assert.Equal(t, "sandbox passwd\n", string(b), "an absolute link means the sandbox's /etc/passwd, not the host's")
	b, err = x.fs.ReadFile("/src/pkg")
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(b), "links cross into other mounts by virtual path")
	b, err = x.fs.ReadFile("/npm/pkg.json")
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(b))
	r, err := x.fs.Resolve("/npm/pkg.json")
	require.NoError(t, err)
	assert.Equal(t, "/cache/npm/pkg.json", r.Virtual)
	assert.Equal(t, x.host("cache/npm/pkg.json"), r.Host)

	// Writing through a link lands in the target's mount, whose mode rules.
	_, err = x.fs.Write("/src/pkg", []byte("x"), WriteOptions{})
	require.ErrorIs(t, err, mountspec.ErrReadOnly)
	assert.Contains(t, err.Error(), "leads through symbolic links to /cache/npm/pkg.json")
	b, _ = os.ReadFile(x.host("cache/npm/pkg.json"))
	assert.Equal(t, "{}\n", string(b))
}

func TestHardLinks(t *testing.T) {
	x := newFixture(t)
	require.NoError(t, os.Link(x.secret, x.host("proj/hl.txt")))
	_, err := x.fs.Read("/hl.txt", ReadOptions{})
	require.ErrorIs(t, err, mountspec.ErrHardLink)
	_, err2 := x.fs.ReadFile("/hl.txt")
	require.ErrorIs(t, err2, mountspec.ErrHardLink)
	_, err3 := x.fs.Write("/hl.txt", []byte("more"), WriteOptions{Append: true})
	require.ErrorIs(t, err3, mountspec.ErrHardLink)
	_, err4 := x.fs.Edit("/hl.txt", "TOP", "NOT", false)
	require.ErrorIs(t, err4, mountspec.ErrHardLink)
	x.assertCanary(t, err, err2, err3, err4)

	// A whole write replaces this name only: the other name is untouched.
	_, err = x.fs.Write("/hl.txt", []byte("new"), WriteOptions{})
	require.NoError(t, err)
	x.assertCanary(t)
	b, _ := os.ReadFile(x.host("proj/hl.txt"))
	assert.Equal(t, "new", string(b))

	// Appending through a second name is refused even when reads are allowed.
	y := newFixture(t, func(s *mountspec.Sandbox) { s.Files.AllowHardLinks = true })
	require.NoError(t, os.Link(y.secret, y.host("proj/hl.txt")))
	b, err = y.fs.ReadFile("/hl.txt")
	require.NoError(t, err)
	assert.Equal(t, secret, string(b))
	_, err = y.fs.Write("/hl.txt", []byte("more"), WriteOptions{Append: true})
	require.ErrorIs(t, err, mountspec.ErrHardLink)
	y.assertCanary(t)
}

func TestSpecialFilesDoNotBlock(t *testing.T) {
	x := newFixture(t)
	require.NoError(t, syscall.Mkfifo(x.host("proj/fifo"), 0o644))
	_, err := x.fs.Read("/fifo", ReadOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
	_, err = x.fs.Write("/fifo", []byte("x"), WriteOptions{Append: true})
	require.Error(t, err)
	_, err = x.fs.Read("/src", ReadOptions{})
	require.ErrorIs(t, err, syscall.EISDIR)
}

func TestNoLinkCreationInTheAPI(t *testing.T) {
	// The file tools can make files and directories, never links: an API
	// method that did would be a way to point outside.
	for _, m := range []string{"Link", "Symlink", "Rename", "Chmod", "Chown", "Mkfifo", "Mknod"} {
		assert.False(t, hasMethod(&FS{}, m), m)
	}
}

func TestSuffixAndSizeRules(t *testing.T) {
	x := newFixture(t, func(s *mountspec.Sandbox) {
		s.Files.Suffixes = []string{".md", ".txt"}
		s.Files.MaxFileBytes = 16
	})
	require.NoError(t, os.WriteFile(x.host("proj/big.txt"), []byte(strings.Repeat("x", 17)), 0o644))
	_, err := x.fs.Read("/src/app.ts", ReadOptions{})
	require.ErrorIs(t, err, mountspec.ErrSuffixNotAllowed)
	assert.Equal(t, "Cannot read \"/src/app.ts\": suffix not allowed.\nAllowed suffixes: .md, .txt", err.Error())
	_, err = x.fs.Read("/big.txt", ReadOptions{})
	require.ErrorIs(t, err, mountspec.ErrTooLarge)
	assert.Equal(t, "Cannot read \"/big.txt\": file too large (17 bytes).\nMaximum allowed: 16 bytes", err.Error())
	_, err = x.fs.Write("/out/a.txt", []byte(strings.Repeat("y", 17)), WriteOptions{})
	require.ErrorIs(t, err, mountspec.ErrTooLarge)
	_, err = x.fs.Write("/out/a.sh", []byte("y"), WriteOptions{})
	require.ErrorIs(t, err, mountspec.ErrSuffixNotAllowed)
	// A link with an allowed name to a file with another suffix is refused.
	require.NoError(t, os.Symlink("src/app.ts", x.host("proj/app.md")))
	_, err = x.fs.Read("/app.md", ReadOptions{})
	require.ErrorIs(t, err, mountspec.ErrSuffixNotAllowed)
	assert.NoFileExists(t, x.host("out/a.txt"))
}

// TestLinksIntoShadowedPaths: os.Root alone would follow a link into the
// root's own directory that a mount hides; the sandbox follows it by
// virtual path into the mount, as a container would.
func TestLinksIntoShadowedPaths(t *testing.T) {
	x := newFixture(t)
	require.NoError(t, os.MkdirAll(x.host("proj/cache/npm"), 0o755))
	require.NoError(t, os.WriteFile(x.host("proj/cache/npm/pkg.json"), []byte("shadowed"), 0o644))
	require.NoError(t, os.Symlink("cache/npm/pkg.json", x.host("proj/alias.json")))
	b, err := x.fs.ReadFile("/alias.json")
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(b))
	r, err := x.fs.Read("/alias.json", ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, "{}\n", r.Text)
	assert.Equal(t, "/cache/npm/pkg.json", r.Path)
}
